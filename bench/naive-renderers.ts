import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'puppeteer-core';
import { launchBrowser } from '../src/render/launch-browser.js';
import { DEFAULT_VIEWPORT } from '../src/render/viewport.js';
import { writePng } from '../src/render/write-png.js';

// What a first, straightforward renderer does: Puppeteer's default screenshot settings, one
// shot at a time. They load, wait for fonts and write with sharp exactly as the pool does,
// and skip request interception, which only makes them faster. `tunedCapture` gives them
// the pool's screenshot settings too, to show how much of the gain is reuse and parallelism.

export interface NaiveOptions {
  /** Capture like the pool (fast PNG, viewport only) instead of with Puppeteer's defaults. */
  tunedCapture?: boolean;
}

async function shoot(browser: Browser, htmlPath: string, outPath: string, options: NaiveOptions): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ ...DEFAULT_VIEWPORT, deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(htmlPath).href, { waitUntil: 'load' });
    await page.evaluate('document.fonts.ready.then(() => true)');
    const png = await page.screenshot(
      options.tunedCapture ? { type: 'png', optimizeForSpeed: true, captureBeyondViewport: false } : { type: 'png' },
    );
    await writePng(png, outPath);
  } finally {
    await page.close();
  }
}

/** One browser, a new tab for every mockup, one mockup at a time. */
export async function renderWithNewPageEach(
  chromiumPath: string,
  htmlPaths: string[],
  outDir: string,
  options: NaiveOptions = {},
): Promise<void> {
  const launched = await launchBrowser({ chromiumPath });
  try {
    for (const [index, htmlPath] of htmlPaths.entries()) {
      await shoot(launched.browser, htmlPath, join(outDir, `${index}.png`), options);
    }
  } finally {
    await launched.close();
  }
}

/** A new browser for every mockup, one mockup at a time. */
export async function renderWithNewBrowserEach(
  chromiumPath: string,
  htmlPaths: string[],
  outDir: string,
  options: NaiveOptions = {},
): Promise<void> {
  for (const [index, htmlPath] of htmlPaths.entries()) {
    const launched = await launchBrowser({ chromiumPath });
    try {
      await shoot(launched.browser, htmlPath, join(outDir, `${index}.png`), options);
    } finally {
      await launched.close();
    }
  }
}
