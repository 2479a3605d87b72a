import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawConnection } from '../../chaos/lib/raw-client.js';
import { jobsTable } from '../../src/db/jobs-table.js';
import { jobRow } from '../helpers/temp-store.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

// Bounds small enough to watch: a request has 1 s to arrive, an answer 0.5 s to be taken,
// and the server holds at most 3 streams, 2 per client address.
let backend: TestBackend;
let port: number;
beforeAll(async () => {
  backend = await startTestBackend(
    { REQUEST_TIMEOUT_SECONDS: '1', WRITE_STALL_TIMEOUT_SECONDS: '0.5', STREAMS_PER_CLIENT: '2', STREAMS_TOTAL: '3' },
    { jobs: { consoleBufferFrames: 20 } },
  );
  port = Number(new URL(await backend.app.listen({ host: '127.0.0.1', port: 0 })).port);
});
afterAll(() => backend.close());

interface Connection {
  client: Socket;
  /** The server's end of it, to see when the server closes it (a client that does not read never learns). */
  server: Socket;
  /** What the server sent so far (nothing while `paused`). */
  received(): string;
}

/** A raw connection from `localAddress` (any 127.x.y.z is this machine); a `paused` one never reads. */
async function open({ localAddress = '127.0.0.1', paused = false } = {}): Promise<Connection> {
  const accepted: Socket[] = [];
  const onConnection = (socket: Socket) => accepted.push(socket);
  backend.app.server.on('connection', onConnection);
  const { socket: client, received } = await rawConnection(port, { localAddress, paused });
  let server: Socket | undefined;
  await until(() => (server = accepted.find((socket) => socket.remotePort === client.localPort)) !== undefined, 5000, 'the server to accept');
  backend.app.server.off('connection', onConnection);
  return { client, server: server!, received };
}

/** The status, headers and (when it has a length) body of the first answer on `connection`. */
async function answer(connection: Connection) {
  let head: { status: number; headers: Record<string, string>; body: string } | null = null;
  await until(() => {
    const text = connection.received();
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return false;
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const body = text.slice(end + 4);
    if (headers['content-length'] !== undefined && Buffer.byteLength(body) < Number(headers['content-length'])) return false;
    head = { status: Number(statusLine!.split(' ')[1]), headers, body };
    return true;
  }, 10_000, 'an answer');
  return head!;
}

describe('a client that sends its request too slowly', () => {
  it('gets 408 in the envelope and is disconnected when its body does not arrive in time', async () => {
    const slow = await open();
    slow.client.write('POST /ingest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"for');
    const { status, body } = await answer(slow);
    expect(status).toBe(408);
    expect(JSON.parse(body)).toEqual({ error: { code: 'request_timeout', message: 'The request was not received in time.' } });
    await until(() => slow.server.destroyed, 5000, 'the server to close the connection');
  });

  it('gets 408 in the envelope when its headers trickle in for longer than allowed', async () => {
    const slow = await open();
    slow.client.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    // A byte every 100 ms: never idle for the stall timeout, never done.
    const trickle = setInterval(() => slow.client.write('x'), 100);
    try {
      expect((await answer(slow)).status).toBe(408);
    } finally {
      clearInterval(trickle);
    }
    await until(() => slow.server.destroyed, 5000, 'the server to close the connection');
  });
});

describe('a client that does not take its answer', () => {
  it('is disconnected from a console stream it stopped reading', async () => {
    await until(() => backend.app.consoleStreams.size === 0, 5000, 'earlier consoles to close');
    const stalled = await open({ paused: true });
    stalled.client.write('GET /notifications HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await until(() => backend.app.consoleStreams.size === 1, 5000, 'the console to be connected');
    // Far more than the socket buffers hold: the stream backs up, then holds still.
    const payload = 'x'.repeat(16 * 1024);
    for (let i = 0; i < 1500; i++) backend.app.runJobs.bus.publishNotification({ kind: 'run-completed', jobId: `j${i}`, message: payload });
    await until(() => stalled.server.destroyed, 20_000, 'the server to close the stalled console');
    // The response's 'close' follows the socket's destruction by a tick or more.
    await until(() => backend.app.consoleStreams.size === 0, 2000, 'the closed console to be forgotten');
    stalled.client.destroy();
  });

  it('is disconnected from GET /jobs/active it stopped reading', async () => {
    // About 12 MB of active list: more than the socket buffers hold.
    await jobsTable(backend.store).insert(Array.from({ length: 40_000 }, (_, i) => jobRow(`stall-${i}`)));
    const stalled = await open({ paused: true });
    stalled.client.write('GET /jobs/active HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await until(() => stalled.server.destroyed, 20_000, 'the server to close the stalled answer');
    stalled.client.destroy();
  });

  it('is answered when its request is worked on for longer than the stall timeout', async () => {
    const patient = await open();
    const body = JSON.stringify({ force: true, testCases: ['beacon'] });
    const began = Date.now();
    patient.client.write(`POST /ingest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const { status, body: report } = await answer(patient);
    // Rendering the case's mockups took longer than the 0.5 s in which nothing was written.
    expect(Date.now() - began).toBeGreaterThan(500);
    expect(status).toBe(200);
    expect(JSON.parse(report)).toMatchObject({ failed: 0 });
    patient.client.destroy();
  }, 60_000);
});

describe('the caps on open streams', () => {
  it('refuses a client address over its cap with 429 and the server over its total with 503, each with Retry-After', async () => {
    await until(() => backend.app.streams.openByClient.size === 0, 5000, 'earlier streams to close');
    const consoleFrom = async (localAddress: string) => {
      const connection = await open({ localAddress });
      connection.client.write('GET /notifications HTTP/1.1\r\nHost: localhost\r\n\r\n');
      return { connection, ...(await answer(connection)) };
    };
    const first = await consoleFrom('127.0.0.1');
    expect(first.status).toBe(200);
    expect((await consoleFrom('127.0.0.1')).status).toBe(200);
    const overClient = await consoleFrom('127.0.0.1');
    expect(overClient.status).toBe(429);
    expect(overClient.headers['retry-after']).toBe('5');
    expect(JSON.parse(overClient.body).error).toEqual({
      code: 'too_many_requests', message: 'This client address holds 2 open streams, the limit (STREAMS_PER_CLIENT); close one or retry later.',
    });

    expect((await consoleFrom('127.0.0.2')).status).toBe(200);
    const overTotal = await consoleFrom('127.0.0.3');
    expect(overTotal.status).toBe(503);
    expect(overTotal.headers['retry-after']).toBe('5');
    expect(JSON.parse(overTotal.body).error).toEqual({ code: 'too_many_streams', message: 'The server holds 3 open streams, its limit (STREAMS_TOTAL); retry later.' });

    // A stream that closes gives its place back.
    first.connection.client.destroy();
    await until(() => backend.app.streams.openByClient.get('127.0.0.1') === 1, 5000, 'the closed stream to be released');
    expect((await consoleFrom('127.0.0.1')).status).toBe(200);
  });
});
