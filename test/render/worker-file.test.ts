import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workerFile } from '../../src/workers/worker-file.js';

describe('workerFile', () => {
  it('points vitest at the compiled worker under dist/', () => {
    const path = workerFile('render-mockup');
    expect(path).toMatch(/\/dist\/src\/workers\/render-mockup\.js$/);
    expect(existsSync(path)).toBe(true);
  });

  it('says to build when the compiled worker is missing', () => {
    expect(() => workerFile('no-such-worker')).toThrow(/npm run build/);
  });

  it('accepts only kebab-case names', () => {
    expect(() => workerFile('../render-mockup')).toThrow(/kebab-case/);
  });
});
