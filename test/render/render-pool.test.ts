import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/find-chromium.js';
import { createRenderPool, type RenderPool } from '../../src/render/render-pool.js';
import { workerFile } from '../../src/workers/worker-file.js';
import { chromiumProcessesUnder, waitForBusyRenderer } from './chromium-processes.js';
import { pixelAt, writeEscapingMockup, writeNetworkMockup, writeStyledMockup } from './mockup-fixtures.js';

const WHITE = [255, 255, 255];

describe('render pool (real Chromium)', () => {
  let dir: string;
  let pool: RenderPool;

  beforeAll(async () => {
    try {
      workerFile('render-mockup');
    } catch (error) {
      throw new Error(`Render tests run the compiled worker: ${(error as Error).message}`);
    }
    dir = await mkdtemp(join(tmpdir(), 'render-pool-test-'));
    pool = createRenderPool({ chromiumPath: findChromium(process.env.CHROMIUM_PATH), tempDir: dir });
  });

  afterAll(async () => {
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('renders relative CSS and images at the declared viewport', async () => {
    const rootDir = join(dir, 'styled');
    const htmlPath = await writeStyledMockup(rootDir);
    const outPath = join(dir, 'out', 'styled.png');

    const result = await pool.render({ htmlPath, rootDir, outPath, viewport: { width: 640, height: 360 } });

    const meta = await sharp(outPath).metadata();
    expect(result).toEqual({ outPath, width: 640, height: 360, bytes: expect.any(Number) as number, blockedUrls: [], browserRestarts: 0 });
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 640, 360]);
    expect([meta.exif, meta.icc, meta.xmp]).toEqual([undefined, undefined, undefined]);
    const stats = await sharp(outPath).stats();
    expect(Math.max(...stats.channels.map((channel) => channel.stdev))).toBeGreaterThan(20);
    expect(await pixelAt(outPath, 50, 50)).toEqual([0xe4, 0x00, 0x7c]); // #block, from css/site.css
    expect(await pixelAt(outPath, 225, 125)).toEqual([0, 90, 255]); // img/dot.png
    expect(await pixelAt(outPath, 600, 20)).toEqual(WHITE);
    // Written under a temporary name and renamed: nothing else is left beside it.
    expect(readdirSync(join(dir, 'out'))).toEqual(['styled.png']);
  });

  it('renders at 1280x720 when the task declares no viewport', async () => {
    const rootDir = join(dir, 'styled');
    const result = await pool.render({ htmlPath: join(rootDir, 'index.html'), rootDir, outPath: join(dir, 'default.png') });
    expect([result.width, result.height]).toEqual([1280, 720]);
  });

  it('makes no request to a server on loopback', async () => {
    const connections: string[] = [];
    const server: Server = createServer((request, response) => response.end(request.url));
    server.on('connection', (socket) => connections.push(`${socket.remoteAddress}:${socket.remotePort}`));
    const stun: UdpSocket = createSocket('udp4');
    const datagrams: number[] = [];
    stun.on('message', (message) => datagrams.push(message.length));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => stun.bind(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const rootDir = join(dir, 'network');
      const htmlPath = await writeNetworkMockup(rootDir, origin, stun.address().port);

      // WebSockets and STUN start from script and are not part of `load`: only a browser
      // that has stopped cannot try them later, so this pool is closed before the checks.
      const own = createRenderPool({ chromiumPath: findChromium(process.env.CHROMIUM_PATH), tempDir: dir, threads: 1 });
      let result;
      try {
        result = await own.render({ htmlPath, rootDir, outPath: join(dir, 'network.png') });
      } finally {
        await own.close();
      }

      expect(result.width).toBe(1280);
      expect(connections).toEqual([]);
      // Reported, so ingest can say why a reference lacks what they held.
      expect(result.blockedUrls).toEqual(expect.arrayContaining([`${origin}/style.css`, `${origin}/script.js`, `${origin}/x`]));
      expect(datagrams).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      stun.close();
    }
  });

  it('loads no file from outside the version folder, by ../ or by symlink', async () => {
    const { htmlPath, rootDir } = await writeEscapingMockup(join(dir, 'escape'));
    const outPath = join(dir, 'escape.png');

    const { blockedUrls } = await pool.render({ htmlPath, rootDir, outPath });

    expect(await pixelAt(outPath, 50, 50)).toEqual([0, 0, 255]); // own.css did load
    expect(await pixelAt(outPath, 150, 50)).toEqual(WHITE); // ../outside/dotdot.css
    expect(await pixelAt(outPath, 250, 50)).toEqual(WHITE); // shared/ -> ../outside
    expect(await pixelAt(outPath, 350, 50)).toEqual(WHITE); // theme.css -> ../outside/linked-file.css
    expect(await pixelAt(outPath, 25, 175)).not.toEqual([0, 255, 0]); // ../outside/green.png
    expect(await pixelAt(outPath, 125, 175)).not.toEqual([0, 255, 0]); // file:///…/outside/green.png
    const outside = pathToFileURL(join(dir, 'escape', 'outside')).href;
    expect([...blockedUrls].sort()).toEqual(
      [`${outside}/dotdot.css`, `${outside}/green.png`, `${pathToFileURL(rootDir).href}/shared/linked-dir.css`,
        `${pathToFileURL(rootDir).href}/theme.css`].sort(),
    );
  });

  it('fails with an Error naming a missing HTML file, or one outside its folder', async () => {
    const rootDir = join(dir, 'styled');
    const missing = join(rootDir, 'missing.html');
    await expect(pool.render({ htmlPath: missing, rootDir, outPath: join(dir, 'missing.png') })).rejects.toThrow(
      `Could not render ${missing}: the HTML file does not exist`,
    );
    const elsewhere = join(dir, 'escape', 'version', 'index.html');
    await expect(pool.render({ htmlPath: elsewhere, rootDir, outPath: join(dir, 'x.png') })).rejects.toThrow(
      /is outside its folder/,
    );
    expect(existsSync(join(dir, 'missing.png'))).toBe(false);
  });

  it('survives its browsers being killed, during and between renders', async () => {
    // A pool of its own with one browser: every kill then costs one relaunch, not one per
    // thread, which keeps this test well inside its time limit on a busy machine.
    const killDir = await mkdtemp(join(dir, 'kill-'));
    const onePool = createRenderPool({ chromiumPath: findChromium(process.env.CHROMIUM_PATH), tempDir: killDir, threads: 1, pagesPerBrowser: 2 });
    const rootDir = join(dir, 'styled');
    const htmlPath = join(rootDir, 'index.html');
    const task = (name: string) => ({ htmlPath, rootDir, outPath: join(dir, 'killed', `${name}.png`) });
    const killBrowsers = () => {
      const browsers = chromiumProcessesUnder(killDir).filter((found) => found.isBrowser);
      for (const { pid } of browsers) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error; // exited meanwhile
        }
      }
      return browsers.length;
    };
    try {
      await onePool.renderAll([task('warm-1'), task('warm-2')]);

      expect(killBrowsers()).toBeGreaterThan(0);
      await expect(onePool.render(task('after'))).resolves.toMatchObject({ width: 1280, height: 720 });

      // Renders under way when their browser dies are tried again on a new one. These pages
      // hold their renderer busy for 800 ms: once one has burnt CPU, its render is in flight.
      const slow = (name: string) => ({ ...task(name), htmlPath: join(rootDir, 'slow.html') });
      const inFlight = onePool.renderAll(['a', 'b'].map(slow));
      await waitForBusyRenderer(killDir);
      expect(killBrowsers()).toBeGreaterThan(0);
      await expect(inFlight).resolves.toHaveLength(2);
    } finally {
      await onePool.close();
    }
    expect(chromiumProcessesUnder(killDir)).toEqual([]);
  });

  it('closes every browser and removes their profiles', async () => {
    await pool.render({ htmlPath: join(dir, 'styled', 'index.html'), rootDir: join(dir, 'styled'), outPath: join(dir, 'last.png') });
    expect(chromiumProcessesUnder(dir).length).toBeGreaterThan(0);

    await pool.close();

    expect(chromiumProcessesUnder(dir)).toEqual([]);
    expect(readdirSync(dir).filter((name) => name.startsWith('render-pool-'))).toEqual([]);
    await expect(pool.render({ htmlPath: join(dir, 'styled', 'index.html'), rootDir: join(dir, 'styled'), outPath: join(dir, 'late.png') })).rejects.toThrow(/closed/);
  });
});
