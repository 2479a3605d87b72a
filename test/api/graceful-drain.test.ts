import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let port: number;

beforeAll(async () => {
  backend = await startTestBackend({ RUN_WORKERS: 'false' });
  const url = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  port = Number(new URL(url).port);
});
afterAll(async () => {
  await backend?.close().catch(() => {});
});

/** A raw keep-alive connection: each `send` writes bytes, `answer` reads one whole answer (status, headers). */
function keepAliveSocket() {
  const socket: Socket = connect(port, '127.0.0.1');
  let buffered = '';
  let waiter: (() => void) | null = null;
  const events = { closed: false, error: null as Error | null };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    waiter?.();
  });
  socket.on('error', (error) => (events.error = error));
  socket.on('close', () => {
    events.closed = true;
    waiter?.();
  });
  const connected = new Promise<void>((done) => socket.once('connect', () => done()));
  return {
    socket,
    events,
    connected,
    send: (text: string) => socket.write(text),
    async answer(): Promise<{ status: number; headers: string }> {
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end !== -1) {
          const head = buffered.slice(0, end);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (buffered.length >= end + 4 + length) {
            buffered = buffered.slice(end + 4 + length);
            return { status: Number(head.split(' ')[1]), headers: head.toLowerCase() };
          }
        }
        if (events.closed) throw events.error ?? new Error('the connection closed before an answer');
        await new Promise<void>((done) => (waiter = done));
      }
    },
  };
}

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`;

describe('a graceful stop', () => {
  it('answers requests on open keep-alive sockets while it drains, closing each after its answer, and closes idle ones', async () => {
    const busy = keepAliveSocket();
    const later = keepAliveSocket();
    const idle = keepAliveSocket();
    await Promise.all([busy.connected, later.connected, idle.connected]);
    for (const client of [busy, later, idle]) {
      client.send(GET('/healthz'));
      const first = await client.answer();
      expect(first.status).toBe(200);
      expect(first.headers).not.toContain('connection: close');
    }
    // In flight when the stop starts: half a request, the rest sent once draining began.
    busy.send('GET /healthz HTTP/1.1\r\n');
    const drained = backend.app.drain.begin(1500);
    await new Promise((resume) => setTimeout(resume, 50));
    busy.send('host: 127.0.0.1\r\n\r\n');
    const inFlight = await busy.answer();
    expect(inFlight.status).toBe(200);
    expect(inFlight.headers).toContain('connection: close');

    // A socket idle when draining began still carries one more request, answered and closed.
    await new Promise((resume) => setTimeout(resume, 200));
    later.send(GET('/healthz'));
    const afterDrain = await later.answer();
    expect(afterDrain.status).toBe(200);
    expect(afterDrain.headers).toContain('connection: close');

    const ready = keepAliveSocket();
    await ready.connected;
    ready.send(GET('/readyz'));
    const readiness = await ready.answer();
    expect(readiness.status).toBe(503);

    await drained;
    await backend.app.close();
    // Every socket is closed by now, the idle one too, and none was reset.
    await new Promise((resume) => setTimeout(resume, 100));
    for (const client of [busy, later, idle, ready]) {
      expect(client.events.closed).toBe(true);
      expect(client.events.error).toBeNull();
    }
  }, 20_000);
});
