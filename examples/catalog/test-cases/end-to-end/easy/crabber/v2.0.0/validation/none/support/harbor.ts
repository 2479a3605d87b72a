// Shared by every Crabber validator under none: serve the built site, open it in
// Chromium and reach its debug surface. The engineless build installs the surface on `window.__crabber` itself.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { chromium, type Page } from 'playwright';

export interface Reading {
  boat: { col: number; row: number; facing: 'up' | 'down' | 'left' | 'right' };
  pots: { col: number; row: number; crabs: number }[];
  gulls: { col: number; row: number; landed: boolean }[];
  hold: number;
  potsAboard: number;
  score: number;
  clock: number;
  screen: string;
}

export interface Harbor {
  page: Page;
  call<T>(operation: string, ...args: unknown[]): Promise<T>;
  read(): Promise<Reading>;
  press(key: string): Promise<void>;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png' };

export async function openHarbor(seed = 1): Promise<Harbor> {
  const root = process.env.BUILD_DIR ?? 'dist';
  const server = createServer(async (request, response) => {
    const path = join(root, request.url === '/' ? 'index.html' : decodeURIComponent(request.url!.split('?')[0]!));
    try {
      response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(await readFile(path));
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  const browser = await chromium.launch({ args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1200, height: 640 } });
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForFunction(() => Boolean((window as any).__crabber));
  const call = <T>(operation: string, ...args: unknown[]): Promise<T> => {
    return page.evaluate(([op, rest]) => (window as any).__crabber[op as string](...(rest as unknown[])), [operation, args] as const) as Promise<T>;
  };
  await call('reset', seed);
  return {
    page,
    call,
    read: () => call<Reading>('read'),
    press: async (key) => {
      await page.keyboard.press(key);
      await call('advance', 12);
    },
    close: async () => {
      await browser.close();
      server.close();
    },
  };
}
