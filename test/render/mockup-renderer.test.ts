import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/find-chromium.js';
import { MockupRenderer } from '../../src/render/mockup-renderer.js';
import { chromiumProcessesUnder, waitForBusyRenderer } from './chromium-processes.js';
import { writeStyledMockup } from './mockup-fixtures.js';

const VIEWPORT = { width: 320, height: 200 };
const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const WHITE = [255, 255, 255];

async function pixel(png: Uint8Array, x: number, y: number): Promise<number[]> {
  const data = await sharp(png).extract({ left: x, top: y, width: 1, height: 1 }).removeAlpha().raw().toBuffer();
  return [...data];
}

// One browser with two tabs, driven directly: what a pool thread does, minus the thread.
describe('mockup renderer (real Chromium)', () => {
  let dir: string;
  let renderer: MockupRenderer;
  const page = async (name: string, html: string) => {
    const htmlPath = join(dir, name);
    await writeFile(htmlPath, html);
    return htmlPath;
  };
  const render = (htmlPath: string) => renderer.render({ htmlPath, rootDir: dir, viewport: VIEWPORT });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mockup-renderer-test-'));
    await mkdir(join(dir, 'profiles'));
    renderer = new MockupRenderer({
      chromiumPath: findChromium(process.env.CHROMIUM_PATH),
      tempDir: join(dir, 'profiles'),
      pages: 2,
      timeoutMs: 3000,
    });
  });

  afterAll(async () => {
    await renderer.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs the mockup's scripts, and alert() does not hold them up", async () => {
    const htmlPath = await page(
      'scripted.html',
      `<!doctype html><body style="margin:0"><div id="box" style="width:100px;height:100px;background:#f00"></div>
       <script>alert('hello'); confirm('sure?'); document.getElementById('box').style.background = '#0f0';</script>`,
    );
    const { png } = await render(htmlPath);
    expect(await pixel(png, 50, 50)).toEqual(GREEN);
  });

  it('renders a page with a doctype in standards mode and one without in quirks mode', async () => {
    // Only in quirks mode does a percentage height fill the viewport from an auto-height body.
    const body = '<body style="margin:0"><div style="height:100%;background:#f00"></div></body>';
    const standards = await render(await page('standards.html', `<!-- v2 --><!DOCTYPE html><html>${body}</html>`));
    const quirks = await render(await page('quirks.html', `<html>${body}</html>`));
    expect(await pixel(standards.png, 10, 10)).toEqual(WHITE);
    expect(await pixel(quirks.png, 10, 10)).toEqual(RED);
  });

  it('shows plain mockups one after another in one frame as if each were alone', async () => {
    // The first snaps its frame's scroll to its second block; the next starts at the top.
    const scrolled = await render(
      await page(
        'snapped.html',
        '<!doctype html><html style="scroll-snap-type:y mandatory"><body style="margin:0">' +
          '<div style="height:3000px;background:#f00"></div><div style="height:3000px;background:#fff;scroll-snap-align:start"></div>',
      ),
    );
    expect(await pixel(scrolled.png, 10, 10)).toEqual(WHITE);
    const tall = await page('tall.html', '<!doctype html><body style="margin:0"><div style="height:3000px;background:#0f0"></div></body>');
    expect(await pixel((await render(tall)).png, 10, 10)).toEqual(GREEN);
  });

  it('shows a mockup in a new window after one that ran script', async () => {
    // Kept windows keep their timers and top-level declarations across documents.
    const painter = (color: string) =>
      `<!doctype html><body style="margin:0"><script>const paint = '${color}';
       setInterval(() => { if (document.body) document.body.style.background = paint; }, 1);</script></body>`;
    expect(await pixel((await render(await page('paints-red.html', painter('#f00')))).png, 10, 10)).toEqual(RED);
    // A second declaration of `paint` in the same window would be a SyntaxError.
    expect(await pixel((await render(await page('paints-green.html', painter('#0f0')))).png, 10, 10)).toEqual(GREEN);
    const plain = await render(await page('plain-white.html', '<!doctype html><body><p>x</p></body>'));
    expect(await pixel(plain.png, 300, 190)).toEqual(WHITE);
  });

  it("loads relative assets from the mockup's own folder, and from its own <base>", async () => {
    await writeStyledMockup(join(dir, 'styled'));
    const { png } = await render(join(dir, 'styled', 'index.html'));
    expect(await pixel(png, 50, 50)).toEqual([0xe4, 0x00, 0x7c]); // css/site.css
    const based = await render(
      await page('based.html', '<!doctype html><base href="styled/"><link rel="stylesheet" href="css/site.css"><div id="block"></div>'),
    );
    expect(await pixel(based.png, 50, 50)).toEqual([0xe4, 0x00, 0x7c]);
  });

  it('draws text in the web fonts the mockup ships in its folder', async () => {
    // The bootstrap installs fonts-dejavu-core; shipped here as the mockup's own web font.
    await mkdir(join(dir, 'fonts'), { recursive: true });
    await copyFile('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', join(dir, 'fonts', 'shipped.ttf'));
    const text = '<p style="margin:20px">Quarterly</p>';
    const shipped = await render(
      await page(
        'web-font.html',
        `<!doctype html><style>@font-face { font-family: Shipped; src: url(fonts/shipped.ttf); font-display: block; }
         p { font: 40px Shipped, monospace; }</style>${text}`,
      ),
    );
    const installed = await render(await page('system-font.html', `<!doctype html><style>p { font: 40px 'DejaVu Sans', monospace; }</style>${text}`));
    const raw = (png: Uint8Array) => sharp(png).removeAlpha().raw().toBuffer();
    // Without the web font the text would be invisible (font-display: block) or monospace.
    expect((await raw(shipped.png)).equals(await raw(installed.png))).toBe(true);
    expect(Math.max(...(await sharp(shipped.png).stats()).channels.map((channel) => channel.stdev))).toBeGreaterThan(5);
  });

  it('fails a mockup that navigates its tab away, and renders the next one', async () => {
    await page('elsewhere.html', '<!doctype html><body style="background:#f00"></body>');
    const leaving = await page(
      'leaving.html',
      `<!doctype html><script>top.location.href = new URL('elsewhere.html', document.baseURI).href;</script>`,
    );
    await expect(render(leaving)).rejects.toThrow(/leaving\.html: its script navigated the browser tab away/);
    const { png } = await render(await page('after-leaving.html', '<!doctype html><body style="background:#0f0">'));
    expect(await pixel(png, 10, 10)).toEqual(GREEN);
  });

  it('renders again in a new tab when its tab crashes mid-render', async () => {
    // Its script holds the page's renderer busy for 800 ms: once it has burnt CPU, the render is under way.
    const slow = await page(
      'slow-green.html',
      '<!doctype html><body style="background:#0f0"><script>const end = Date.now() + 800; while (Date.now() < end);</script>',
    );
    // Browser and tab up first, so the kill lands in the render rather than in the launch.
    await render(await page('warm-up.html', '<!doctype html><p>x</p>'));
    const rendering = render(slow);
    await waitForBusyRenderer(join(dir, 'profiles'));
    // Every tab's renderer, the idle tab's too: that one is found dead when next taken.
    const renderers = chromiumProcessesUnder(join(dir, 'profiles')).filter((found) => found.isRenderer);
    expect(renderers.length).toBeGreaterThan(0);
    for (const { pid } of renderers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error; // exited meanwhile
      }
    }
    expect(await pixel((await rendering).png, 10, 10)).toEqual(GREEN);
    const [first, second] = await Promise.all([render(slow), render(slow)]);
    expect([await pixel(first.png, 10, 10), await pixel(second.png, 10, 10)]).toEqual([GREEN, GREEN]);
  });

  it('gives up on a tab that does not come up in time', async () => {
    // 1 ms: no tab comes up that fast, which stands in for one that never does.
    const impatient = new MockupRenderer({ chromiumPath: findChromium(process.env.CHROMIUM_PATH), tempDir: join(dir, 'profiles'), timeoutMs: 1 });
    try {
      const htmlPath = await page('patient.html', '<!doctype html><p>x</p>');
      await expect(impatient.render({ htmlPath, rootDir: dir, viewport: VIEWPORT })).rejects.toThrow(
        /patient\.html: a new tab did not show its host page within 1 ms/,
      );
    } finally {
      await impatient.close();
    }
  });

  it('gives up on a mockup whose script never ends, and renders the next one', async () => {
    const stuck = await page('stuck.html', '<!doctype html><script>for (;;) {}</script>');
    await expect(render(stuck)).rejects.toThrow(/stuck\.html: it took longer than 3000 ms to load and render \(stuck loading/);
    const { png } = await render(await page('after-stuck.html', '<!doctype html><body style="background:#0f0">'));
    expect(await pixel(png, 10, 10)).toEqual(GREEN);
  });
});
