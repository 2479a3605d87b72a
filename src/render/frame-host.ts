import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The host page's whole markup: nothing but a frame filling the viewport. Written again with
// every new frame, so nothing a mockup's script did to its parent's DOM reaches the next one.
const HOST_MARKUP =
  '<head><meta charset="utf-8"><style>html, body { margin: 0; overflow: hidden; background: #fff; } ' +
  'iframe { position: fixed; left: 0; top: 0; width: 100vw; height: 100vh; border: 0; display: block; }' +
  '</style></head><body></body>';

const HOST_FILE = 'mockup-host.html';

/**
 * Writes the page every tab keeps open and shows mockups in, and returns its `file:` URL.
 * An iframe fills its viewport, and the tab writes each mockup's markup into it (see
 * `writeInFrameScript`) instead of navigating anywhere.
 */
export async function writeFrameHost(dir: string): Promise<string> {
  const path = join(dir, HOST_FILE);
  await writeFile(path, `<!doctype html><html>${HOST_MARKUP}</html>`);
  return pathToFileURL(path).href;
}

/**
 * A script for the host page at `hostUrl`, run in a world of our own beside the page's: it
 * writes `markup` (from `mockupMarkup`) into the host's frame, and resolves once the frame's
 * `load` fired (its stylesheets, images and scripts are in) and the fonts its layout asks for
 * have settled.
 *
 * With `reuseFrame` the markup replaces the document of the frame already there, when there
 * is one. Otherwise the host is rebuilt around a new frame: a new window, which is what a
 * mockup that runs script needs, and what the one before needs if it ran any (see
 * `markupMayRunScript`). `document.open()` gives a frame a new document but keeps its window,
 * the window's globals and its timers; a mockup's script could also have reached into its
 * parent. A new frame costs a quarter of a render's CPU (the browser sets up a frame and
 * tears one down; 82 against 61 ms per shot on the bench's mockups), so frames are kept
 * while the mockups shown in them are plain markup, as reference mockups usually are.
 *
 * Writing instead of loading the file into the frame took a sixth off the machine's CPU per
 * render on the bench's mockups (126 to 108 ms, one browser, 3 tabs): no navigation runs
 * in the browser process, with the per-navigation bookkeeping of a full Chrome, and no URL
 * loader fetches the HTML. The parser, the stylesheets, scripts, fonts and the request
 * fence are the same, and the example and fixture catalogs render to identical pixels.
 * What differs is what a mockup's script reads from `location`: the host's URL (relative
 * URLs resolve through the `<base>`), and that it may reach into its parent, which is why
 * the script runs in a world of its own.
 */
export function writeInFrameScript(hostUrl: string, markup: string, reuseFrame: boolean): string {
  return `(async () => {
    if (location.href !== ${JSON.stringify(hostUrl)}) {
      throw new Error('the tab left its host page (did a mockup navigate its parent?)');
    }
    let frame = ${reuseFrame} ? document.querySelector('iframe') : null;
    if (!frame) {
      document.documentElement.innerHTML = ${JSON.stringify(HOST_MARKUP)};
      frame = document.createElement('iframe');
      document.body.append(frame);
    }
    const doc = frame.contentDocument;
    doc.open();
    // After open(), which drops the listeners the frame had.
    const loaded = new Promise((resolve) => frame.contentWindow.addEventListener('load', resolve, { once: true }));
    doc.write(${JSON.stringify(markup)});
    doc.close();
    await loaded;
    // Layout is what starts the downloads of the web fonts the page uses.
    void doc.documentElement?.offsetHeight;
    await doc.fonts.ready;
    return true;
  })()`;
}
