import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/find-chromium.js';
import { launchBrowser } from '../../src/render/launch-browser.js';
import { chromiumProcessesUnder } from './chromium-processes.js';

describe('launchBrowser (real Chromium)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'launch-browser-test-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('ends a wait Puppeteer itself would keep up for 30 s once the browser is killed', async () => {
    const launched = await launchBrowser({ chromiumPath: findChromium(process.env.CHROMIUM_PATH), tempDir: dir });
    try {
      // newPage() waits like this for the tab it asked for; a killed browser never announces it.
      const waiting = Promise.race([launched.browser.waitForTarget(() => false), launched.gone]);
      const started = performance.now();
      process.kill(launched.pid, 'SIGKILL');

      await expect(waiting).rejects.toThrow(`Chromium ${launched.pid} exited`);
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      await launched.close();
    }
    expect(chromiumProcessesUnder(launched.userDataDir)).toEqual([]);
    expect(existsSync(launched.userDataDir)).toBe(false);
  });

  it('counts a browser closed on purpose as gone too', async () => {
    const launched = await launchBrowser({ chromiumPath: findChromium(process.env.CHROMIUM_PATH), tempDir: dir });
    await launched.close();
    await expect(launched.gone).rejects.toThrow(/exited/);
  });
});
