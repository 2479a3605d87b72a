import { accessSync, chmodSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/find-chromium.js';

// Stand-in executables, so nothing here depends on where this machine keeps its browser.
const dir = mkdtempSync(join(tmpdir(), 'find-chromium-'));
const executable = (name: string, mode = 0o755) => {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, mode);
  return path;
};
const first = executable('chrome-a');
const second = executable('chrome-b');
const notExecutable = executable('chrome-plain', 0o644);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('findChromium', () => {
  it('uses an explicit path that is executable', () => {
    expect(findChromium(first)).toBe(first);
  });

  it('names CHROMIUM_PATH when the explicit path does not exist or cannot run', () => {
    expect(() => findChromium(join(dir, 'nowhere'))).toThrow(`CHROMIUM_PATH is ${join(dir, 'nowhere')}, which does not exist or is not executable.`);
    // Root may execute a file without the x bit only if some x bit is set: 0644 has none.
    expect(() => findChromium(notExecutable)).toThrow(/which does not exist or is not executable/);
  });

  it('takes the first executable candidate when no path is given, and names them all when none is', () => {
    expect(findChromium(undefined, [join(dir, 'missing'), notExecutable, second, first])).toBe(second);
    expect(findChromium('', [first])).toBe(first);
    expect(() => findChromium(undefined, [join(dir, 'missing'), notExecutable])).toThrow(
      `No Chromium found (looked for ${join(dir, 'missing')}, ${notExecutable}).`,
    );
  });

  it('finds an executable system browser with the default candidates', () => {
    const found = findChromium();
    expect(() => accessSync(found, constants.X_OK)).not.toThrow();
  });
});
