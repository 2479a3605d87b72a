/**
 * Clients that open a console stream (`GET /notifications`) while notifications flow, or
 * ask for a long `GET /jobs/active`, and never read. Proves the server closes each once it
 * has not taken what was written for WRITE_STALL_TIMEOUT_SECONDS (30 s), with bounded
 * memory, and keeps answering meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeNotification } from '../src/events/console-event-bus.js';
import { enqueue, printFigures, rssMiB, startChaosService } from './lib/chaos-service.js';
import { rawConnection, serverConnections, type RawConnection } from './lib/raw-client.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const CONSOLES = 20;
const LISTS = 20;
/** About 300 bytes each in the active list: some 15 MB, more than the socket buffers take. */
const JOBS = 50_000;
const NOTIFICATIONS = 1500;
const NOTIFICATION_KIB = 16;
/**
 * The watch: twice WRITE_STALL_TIMEOUT_SECONDS (30 s), the promise, counted from when a
 * connection stalls, which this side cannot see: the API passes the notifications on some
 * time after the last is published. The figure shows how close to 60 s it came.
 */
const CUT_WITHIN_MS = 90_000;
/**
 * What the consoles may hold by design (MiB): each one's frames up to its bounded buffer
 * (1,000 frames or 1 Mi characters, one byte each here, run-jobs.ts).
 */
const CONSOLES_BOUND_MIB = CONSOLES * Math.min((Math.min(NOTIFICATIONS, 1000) * NOTIFICATION_KIB) / 1024, 1);

export default async function neverReadingStreams(): Promise<ScenarioResult> {
  const chaos = await startChaosService();
  try {
    await enqueue(chaos, JOBS);
    const port = Number(new URL(chaos.service.url).port);
    const api = chaos.service.pid('api')!;
    const own = serverConnections(port);
    // An active list is read a page at a time as its socket drains, but the kernel's socket
    // buffers take several MiB of it before the stall shows, and that much passes through the
    // heap: measured here as some 9 MiB of RSS a list (20 lists alone: +178 MiB, 20 consoles
    // alone: +13 MiB). The bound is one copy of each list, its size read once in full.
    const list = await chaos.call('GET', '/jobs/active', undefined, undefined, 60_000);
    if (list.status !== 200) throw new Error(`GET /jobs/active answered ${list.status}`);
    const listMiB = Buffer.byteLength(JSON.stringify(list.body)) / (1024 * 1024);
    const bound = CONSOLES_BOUND_MIB + LISTS * listMiB;
    const baseline = rssMiB(api);
    const clients: RawConnection[] = [];
    for (let i = 0; i < CONSOLES + LISTS; i++) {
      const client = await rawConnection(port, { paused: true });
      client.socket.write(`GET ${i < CONSOLES ? '/notifications' : '/jobs/active'} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      clients.push(client);
    }
    // Notifications as any API process publishes them, 16 KiB each.
    const redis = chaos.redis();
    const message = encodeNotification({ kind: 'run-completed', jobId: 'chaos', message: 'x'.repeat(NOTIFICATION_KIB * 1024) });
    for (let i = 0; i < NOTIFICATIONS; i++) await redis.publish(chaos.keys.consoleChannel, message);
    const began = Date.now();
    let peak = baseline;
    let allCutAt = 0;
    let slowestHealth = 0;
    const timeline: string[] = [];
    while (Date.now() - began < CUT_WITHIN_MS) {
      peak = Math.max(peak, rssMiB(api));
      slowestHealth = Math.max(slowestHealth, (await chaos.call('GET', '/healthz', undefined, undefined, 5000)).ms);
      const open = Math.max(0, serverConnections(port) - own);
      if (timeline.length < Math.floor((Date.now() - began) / 10_000)) timeline.push(`${(timeline.length + 1) * 10}s:${open}`);
      if (open === 0) {
        allCutAt = Date.now();
        break;
      }
      await sleep(200);
    }
    const stillOpen = Math.max(0, serverConnections(port) - own);
    const allCut = allCutAt ? `${((allCutAt - began) / 1000).toFixed(1)} s` : 'not all';
    const growth = peak - baseline;
    for (const client of clients) client.socket.destroy();
    printFigures({
      'never-reading consoles / active-list readers': `${CONSOLES} / ${LISTS}`,
      'notifications published (16 KiB each)': NOTIFICATIONS,
      'jobs in the active list': JOBS,
      'connections cut by the server': CONSOLES + LISTS - stillOpen,
      'all cut after (counted from the last notification)': allCut,
      'connections still open, every 10 s': timeline.join(' '),
      'one active list (MiB)': listMiB.toFixed(1),
      'API RSS before / peak (MiB)': `${baseline.toFixed(0)} / ${peak.toFixed(0)}`,
      'slowest /healthz meanwhile (ms)': slowestHealth.toFixed(0),
    });
    return judge(
      { cut: `${CONSOLES + LISTS - stillOpen} of ${CONSOLES + LISTS}`, 'all cut after': allCut, 'RSS growth': `${growth.toFixed(0)} MiB (bound ${bound.toFixed(0)})`, 'slowest /healthz': `${slowestHealth.toFixed(0)} ms` },
      {
        [`every never-reading client cut within ${CUT_WITHIN_MS / 1000} s of the last notification`]: allCutAt > 0,
        'memory grew by no more than the consoles\' bounded buffers and one copy of each list': growth < bound,
        '/healthz kept answering within 5 s': slowestHealth < 5000,
      },
    );
  } finally {
    await chaos.close();
  }
}
