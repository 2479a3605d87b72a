import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The host page's whole markup: nothing but a frame filling the viewport. Written again
// before every mockup, so nothing a mockup's script did to its parent reaches the next one.
const HOST_MARKUP =
  '<head><meta charset="utf-8"><style>html, body { margin: 0; overflow: hidden; background: #fff; } ' +
  'iframe { position: fixed; left: 0; top: 0; width: 100vw; height: 100vh; border: 0; display: block; }' +
  '</style></head><body></body>';

const HOST_FILE = 'mockup-host.html';

/**
 * Writes the page every tab keeps open and loads mockups into, each as a fresh iframe that
 * fills the viewport, and returns its `file:` URL. Loading a frame costs Chromium about half
 * the CPU of navigating the tab (measured 108 against 179 ms per 1280×720 mockup): a new
 * top-level document also swaps the tab's compositor frame and runs the browser's per-tab
 * navigation bookkeeping. The mockup still has its own URL, base and window. The host must
 * itself be a `file:` page, or Chromium refuses to show `file:` frames in it.
 */
export async function writeFrameHost(dir: string): Promise<string> {
  const path = join(dir, HOST_FILE);
  await writeFile(path, `<!doctype html><html>${HOST_MARKUP}</html>`);
  return pathToFileURL(path).href;
}

/**
 * A script for the host page: resets the host, loads `url` into a new frame and resolves
 * once the frame's `load` fired. The host cannot look inside the frame (Chromium gives
 * every `file:` page an origin of its own), so the caller waits for fonts in the frame.
 */
export function loadInFrameScript(url: string): string {
  return `(async () => {
    document.documentElement.innerHTML = ${JSON.stringify(HOST_MARKUP)};
    const frame = document.createElement('iframe');
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    frame.src = ${JSON.stringify(url)};
    document.body.append(frame);
    await loaded;
    return true;
  })()`;
}

// Runs in the mockup's frame after `load`: reading offsetHeight forces layout, and layout is
// what starts the downloads of the web fonts the page uses; fonts.ready then waits for them.
export const FONTS_SETTLED = 'void document.documentElement.offsetHeight, document.fonts.ready.then(() => true)';
