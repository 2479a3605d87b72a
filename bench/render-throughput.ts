import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findChromium } from '../src/render/find-chromium.js';
import { createRenderPool } from '../src/render/render-pool.js';
import { renderWithNewBrowserEach, renderWithNewPageEach } from './naive-renderers.js';
import { writeSyntheticMockups } from './synthetic-mockups.js';

const MOCKUPS = 72;
// Starting a browser per shot takes about a second; a subset is enough to measure its rate.
const NEW_BROWSER_SUBSET = 12;
// Targets on the 2-core reference machine.
const TARGET_VS_NEW_PAGE = 5;
const TARGET_VS_NEW_BROWSER = 20;

async function pngPerSecond(count: number, run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return count / ((performance.now() - started) / 1000);
}

/** CPU time all cores spent busy so far, in milliseconds: every process, Chromium's too. */
function machineBusyMs(): number {
  return cpus().reduce((sum, { times }) => sum + times.user + times.nice + times.sys + times.irq, 0);
}

/**
 * Renders synthetic 1280×720 mockups three ways and prints PNG/s of each: the render pool,
 * one browser opening a new tab per shot, and a new browser per shot.
 */
export default async function benchRenderThroughput(): Promise<void> {
  // Ratios hold up on a busy machine better than rates do; say how busy it was.
  const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
  const loadAtStart = load();
  const chromiumPath = findChromium(process.env.CHROMIUM_PATH);
  const dir = await mkdtemp(join(tmpdir(), 'bench-render-'));
  try {
    const rootDir = join(dir, 'mockups');
    const htmlPaths = await writeSyntheticMockups(rootDir, MOCKUPS);

    const pool = createRenderPool({ chromiumPath });
    let poolRate: number;
    let poolCpuMs: number;
    try {
      // Browsers start on the first task; warm them up the way a long-lived service is.
      await pool.renderAll(htmlPaths.slice(0, 6).map((htmlPath, i) => ({ htmlPath, rootDir, outPath: join(dir, 'warm', `${i}.png`) })));
      const tasks = htmlPaths.map((htmlPath, i) => ({ htmlPath, rootDir, outPath: join(dir, 'pool', `${i}.png`) }));
      const busyBefore = machineBusyMs();
      poolRate = await pngPerSecond(tasks.length, async () => void (await pool.renderAll(tasks)));
      poolCpuMs = (machineBusyMs() - busyBefore) / tasks.length;
    } finally {
      await pool.close();
    }

    const newPageRate = await pngPerSecond(htmlPaths.length, () =>
      renderWithNewPageEach(chromiumPath, htmlPaths, join(dir, 'new-page')));
    const subset = htmlPaths.slice(0, NEW_BROWSER_SUBSET);
    const newBrowserRate = await pngPerSecond(subset.length, () =>
      renderWithNewBrowserEach(chromiumPath, subset, join(dir, 'new-browser')));

    const vsNewPage = poolRate / newPageRate;
    const vsNewBrowser = poolRate / newBrowserRate;
    const verdict = (ratio: number, target: number) => `${ratio >= target ? 'PASS' : 'FAIL'} (target >= ${target}x)`;
    console.log(`render throughput, ${MOCKUPS} distinct 1280x720 mockups`);
    console.log(`  load average (1, 5, 15 min): ${loadAtStart} at start, ${load()} at end`);
    console.log(`  pool (createRenderPool defaults):  ${poolRate.toFixed(1)} PNG/s, ` +
      `${poolCpuMs.toFixed(0)} ms of CPU per PNG across ${cpus().length} cores (Chromium, Node and sharp)`);
    console.log(`  new page per shot, sequential:     ${newPageRate.toFixed(1)} PNG/s`);
    console.log(`  new browser per shot, sequential:  ${newBrowserRate.toFixed(2)} PNG/s ` +
      `(measured on ${NEW_BROWSER_SUBSET} of the ${MOCKUPS}; the rate is per shot, so it extrapolates)`);
    console.log(`  pool / new page:     ${vsNewPage.toFixed(1)}x  ${verdict(vsNewPage, TARGET_VS_NEW_PAGE)}`);
    console.log(`  pool / new browser:  ${vsNewBrowser.toFixed(1)}x  ${verdict(vsNewBrowser, TARGET_VS_NEW_BROWSER)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Also a script: `node dist/bench/render-throughput.js`.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchRenderThroughput();
}
