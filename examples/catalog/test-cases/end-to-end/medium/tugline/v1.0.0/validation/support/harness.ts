// Shared by every Tugline validator: serve the built site, open it in Chromium and
// hand back the page's debug surface, set up on a still, empty harbor so each test
// adds only what it is about.
import { chromium, type Page } from 'playwright';
import { serveBuild } from './serve-build.js';

export interface Harbor {
  page: Page;
  call<T>(operation: string, ...args: unknown[]): Promise<T>;
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

export interface Snapshot {
  screen: string;
  tick: number;
  score: number;
  clock: number;
  lost: number;
  tug: { x: number; y: number; heading: number; speed: number };
  barges: { id: number; berth: number; x: number; y: number; heading: number; vx: number; vy: number; moored: boolean }[];
}

export async function openHarbor(seed = 1): Promise<Harbor> {
  const server = await serveBuild(process.env.BUILD_DIR ?? 'dist');
  const browser = await chromium.launch({ args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(server.url);
  await page.waitForFunction(() => (window as any).__tugline?.version === 1);
  const call = <T>(operation: string, ...args: unknown[]) =>
    page.evaluate(([op, rest]) => (window as any).__tugline[op as string](...(rest as unknown[])), [operation, args] as const) as Promise<T>;
  await call('reset', { seed });
  await call('setAutoStep', false);
  await call('startShift');
  await call('setArrivals', false);
  await call('clearBarges');
  await call('setCurrent', 0);
  return {
    page,
    call,
    snapshot: () => call<Snapshot>('snapshot'),
    close: async () => { await browser.close(); await server.close(); },
  };
}
