/**
 * Clients that open `GET /jobs/{id}/live` on a job with a full backlog and never read: the
 * API's memory stays bounded (a page per follower, not the backlog) and the server cuts
 * each one off once it has not drained for 30 s.
 */
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { printFigures, rssMiB, SERVICE_TOKEN, startChaosService, enqueue } from './lib/chaos-service.js';
import { rawConnection, serverConnections } from './lib/raw-client.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const CLIENTS = 20;
const BACKLOG_MIB = 16;

export default async function neverReadingLive(): Promise<ScenarioResult> {
  const chaos = await startChaosService();
  try {
    const [jobId] = await enqueue(chaos, 1);
    const { jobToken } = (await chaos.call('POST', '/jobs/next', SERVICE_TOKEN)).body as { jobToken: string };
    const event = { text: 'z'.repeat(200_000) };
    for (let sent = 0; sent < BACKLOG_MIB * 1024 * 1024; sent += 8 * 200_000) {
      const answer = await chaos.call('POST', `/jobs/${jobId}/events`, jobToken, Array.from({ length: 8 }, () => event));
      if (answer.status !== 204) throw new Error(`relay refused: ${answer.status}`);
    }
    const api = chaos.service.pid('api')!;
    // The harness's own keep-alive connections, open before the clients: not theirs to count.
    const ownConnections = serverConnections(Number(new URL(chaos.service.url).port));
    const baseline = rssMiB(api);
    const port = Number(new URL(chaos.service.url).port);
    const sockets: Socket[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const { socket } = await rawConnection(port, { paused: true });
      socket.write(`GET /jobs/${jobId}/live HTTP/1.1\r\nhost: localhost\r\n\r\n`);
      sockets.push(socket);
    }
    let peak = baseline;
    const began = Date.now();
    let allCutAt = 0;
    // A paused client notices the close only after reading what its kernel buffers hold, so
    // count from the server's side: its established connections on the API port.
    const timeline: string[] = [];
    while (Date.now() - began < 90_000) {
      peak = Math.max(peak, rssMiB(api));
      await sleep(200);
      const open = Math.max(0, serverConnections(port) - ownConnections);
      if (timeline.length < Math.floor((Date.now() - began) / 10_000)) timeline.push(`${timeline.length + 1}0s:${open}`);
      if (open === 0) {
        allCutAt = Date.now();
        break;
      }
    }
    const cutOff = CLIENTS - Math.max(0, serverConnections(port) - ownConnections);
    const answered = (await chaos.call('GET', '/healthz')).status;
    const growth = peak - baseline;
    const allCut = allCutAt ? `${((allCutAt - began) / 1000).toFixed(1)} s` : 'not all';
    for (const socket of sockets) socket.destroy();
    printFigures({
      'never-reading clients': CLIENTS,
      'backlog per job (MiB)': BACKLOG_MIB,
      'API RSS before (MiB)': baseline.toFixed(0),
      'API peak RSS (MiB)': peak.toFixed(0),
      'growth (MiB)': growth.toFixed(0),
      'growth if every client held the backlog (MiB)': CLIENTS * BACKLOG_MIB,
      'clients cut off by the server': cutOff,
      'all cut off after': allCut,
      'API still answering': answered === 200,
      'connections still open, every 10 s': timeline.join(' '),
    });
    return judge(
      { 'cut off': `${cutOff} of ${CLIENTS}`, 'all cut after': allCut, 'RSS growth': `${growth.toFixed(0)} MiB (full backlogs: ${CLIENTS * BACKLOG_MIB})` },
      {
        'every never-reading client cut off by the server within 90 s': allCutAt > 0,
        'memory grew by less than half of what every client holding the backlog would take': growth < (CLIENTS * BACKLOG_MIB) / 2,
        'the API kept answering': answered === 200,
      },
    );
  } finally {
    await chaos.close();
  }
}
