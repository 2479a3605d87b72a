import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'puppeteer-core';
import { launchBrowser } from '../src/render/launch-browser.js';
import { DEFAULT_VIEWPORT } from '../src/render/viewport.js';
import { writePng } from '../src/render/write-png.js';

// The baselines are naive in how they use the browser, nothing else: they load, wait for
// fonts, capture and write exactly as the pool does, so the comparison measures reuse and
// parallelism rather than screenshot settings. They skip request interception, which only
// makes them faster.

async function shoot(browser: Browser, htmlPath: string, outPath: string): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ ...DEFAULT_VIEWPORT, deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(htmlPath).href, { waitUntil: 'load' });
    await page.evaluate('document.fonts.ready.then(() => true)');
    const png = await page.screenshot({ type: 'png', optimizeForSpeed: true, captureBeyondViewport: false });
    await writePng(png, outPath);
  } finally {
    await page.close();
  }
}

/** One browser, a new tab for every mockup, one mockup at a time. */
export async function renderWithNewPageEach(chromiumPath: string, htmlPaths: string[], outDir: string): Promise<void> {
  const launched = await launchBrowser({ chromiumPath });
  try {
    for (const [index, htmlPath] of htmlPaths.entries()) {
      await shoot(launched.browser, htmlPath, join(outDir, `${index}.png`));
    }
  } finally {
    await launched.close();
  }
}

/** A new browser for every mockup, one mockup at a time. */
export async function renderWithNewBrowserEach(chromiumPath: string, htmlPaths: string[], outDir: string): Promise<void> {
  for (const [index, htmlPath] of htmlPaths.entries()) {
    const launched = await launchBrowser({ chromiumPath });
    try {
      await shoot(launched.browser, htmlPath, join(outDir, `${index}.png`));
    } finally {
      await launched.close();
    }
  }
}
