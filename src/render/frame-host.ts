import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The host page's whole markup: nothing but a frame filling the viewport. Written again
// before every mockup, so nothing a mockup's script did to its parent's DOM reaches the next one.
const HOST_MARKUP =
  '<head><meta charset="utf-8"><style>html, body { margin: 0; overflow: hidden; background: #fff; } ' +
  'iframe { position: fixed; left: 0; top: 0; width: 100vw; height: 100vh; border: 0; display: block; }' +
  '</style></head><body></body>';

const HOST_FILE = 'mockup-host.html';

/**
 * Writes the page every tab keeps open and shows mockups in, and returns its `file:` URL.
 * Each mockup gets a fresh iframe that fills the viewport, and the tab writes the mockup's
 * markup into it (see `writeInFrameScript`) instead of navigating anywhere.
 */
export async function writeFrameHost(dir: string): Promise<string> {
  const path = join(dir, HOST_FILE);
  await writeFile(path, `<!doctype html><html>${HOST_MARKUP}</html>`);
  return pathToFileURL(path).href;
}

/**
 * A script for the host page at `hostUrl`, run in a world of our own beside the page's: it
 * resets the host, writes `markup` (from `mockupMarkup`) into a new frame, and resolves
 * once the frame's `load` fired (its stylesheets, images and scripts are in) and the fonts
 * its layout asks for have settled.
 *
 * Writing instead of loading the file into the frame took a sixth off the machine's CPU per
 * render on the bench's mockups (126 to 108 ms, one browser, 3 tabs): no navigation runs
 * in the browser process, with the per-navigation bookkeeping of a full Chrome, and no URL
 * loader fetches the HTML. The parser, the stylesheets, scripts, fonts and the request
 * fence are the same, and the example and fixture catalogs render to identical pixels.
 * What differs is what a mockup's script reads from `location`: the host's URL (relative
 * URLs resolve through the `<base>`), and that it may reach into its parent, which is why
 * the script runs in a world of its own and the host is rebuilt every time.
 */
export function writeInFrameScript(hostUrl: string, markup: string): string {
  return `(async () => {
    if (location.href !== ${JSON.stringify(hostUrl)}) {
      throw new Error('the tab left its host page (did a mockup navigate its parent?)');
    }
    document.documentElement.innerHTML = ${JSON.stringify(HOST_MARKUP)};
    const frame = document.createElement('iframe');
    document.body.append(frame);
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
