/**
 * Clients that send their request and never finish it: half stop after part of the body,
 * half trickle it a byte every 5 s (never idle). Proves each is answered 408 in the
 * envelope and closed within REQUEST_TIMEOUT_SECONDS (60 s, checked every 15 s) and that
 * the API keeps answering meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { printFigures, rssMiB, startChaosService } from './lib/chaos-service.js';
import { rawConnection, serverConnections, type RawConnection } from './lib/raw-client.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const CLIENTS = 500;
/** REQUEST_TIMEOUT_SECONDS (60 s) plus Node's check interval, a quarter of it. */
const CLOSED_WITHIN_MS = 75_000;

export default async function slowBody(): Promise<ScenarioResult> {
  const chaos = await startChaosService();
  try {
    const port = Number(new URL(chaos.service.url).port);
    const api = chaos.service.pid('api')!;
    const own = serverConnections(port);
    const baseline = rssMiB(api);
    const clients: RawConnection[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const client = await rawConnection(port);
      client.socket.write('POST /ingest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"testCases":');
      clients.push(client);
    }
    const trickle = setInterval(() => clients.forEach((client, i) => i % 2 === 1 && !client.closed && client.socket.write(' ')), 5000);
    const began = Date.now();
    let peak = baseline;
    let slowestHealth = 0;
    let healthFailures = 0;
    const timeline: string[] = [];
    let allClosedAt = 0;
    try {
      while (Date.now() - began < 150_000) {
        const health = await chaos.call('GET', '/healthz', undefined, undefined, 5000);
        if (health.status !== 200) healthFailures++;
        slowestHealth = Math.max(slowestHealth, health.ms);
        peak = Math.max(peak, rssMiB(api));
        const open = Math.max(0, serverConnections(port) - own);
        if (timeline.length < Math.floor((Date.now() - began) / 15_000)) timeline.push(`${(timeline.length + 1) * 15}s:${open}`);
        if (clients.every((client) => client.closed)) {
          allClosedAt = Date.now();
          break;
        }
        await sleep(500);
      }
    } finally {
      clearInterval(trickle);
    }
    const answered408 = clients.filter((client) => client.status() === 408 && client.received().includes('"code":"request_timeout"')).length;
    const closed = clients.filter((client) => client.closed).length;
    const allClosed = allClosedAt ? `${((allClosedAt - began) / 1000).toFixed(1)} s` : 'not all';
    for (const client of clients) client.socket.destroy();
    printFigures({
      'slow-body clients (half stopped, half trickling)': CLIENTS,
      'answered 408 request_timeout in the envelope': answered408,
      'closed by the server': closed,
      'all closed after': allClosed,
      'connections still open, every 15 s': timeline.join(' '),
      '/healthz failures meanwhile': healthFailures,
      'slowest /healthz meanwhile (ms)': slowestHealth.toFixed(0),
      'API RSS before / peak (MiB)': `${baseline.toFixed(0)} / ${peak.toFixed(0)}`,
    });
    return judge(
      { '408 in the envelope': `${answered408} of ${CLIENTS}`, closed: `${closed} of ${CLIENTS}`, 'all closed after': allClosed, '/healthz failures': healthFailures },
      {
        'every client answered 408 request_timeout in the envelope': answered408 === CLIENTS,
        [`every client closed within ${CLOSED_WITHIN_MS / 1000} s`]: allClosedAt > 0 && allClosedAt - began <= CLOSED_WITHIN_MS,
        '/healthz kept answering': healthFailures === 0,
      },
    );
  } finally {
    await chaos.close();
  }
}
