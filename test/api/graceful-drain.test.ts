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
    answer(): Promise<{ status: number; headers: string }> {
      return this.answerWithBody();
    },
    async answerWithBody(): Promise<{ status: number; headers: string; body: string }> {
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end !== -1) {
          const head = buffered.slice(0, end);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (buffered.length >= end + 4 + length) {
            const body = buffered.slice(end + 4, end + 4 + length);
            buffered = buffered.slice(end + 4 + length);
            return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body };
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
    const began = Date.now();
    const drained = backend.app.drain.begin(4000);
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

    // A new connection in the drain's first half is still taken: a balancer reads /readyz 503.
    const ready = keepAliveSocket();
    await ready.connected;
    ready.send(GET('/readyz'));
    const readiness = await ready.answer();
    expect(readiness.status).toBe(503);
    // One opened then that sends its request only in the second half is answered, not reset.
    const early = keepAliveSocket();
    await early.connected;

    // In the second half the port no longer listens: a late client is refused, nothing sent.
    await new Promise((resume) => setTimeout(resume, began + 2300 - Date.now()));
    const late = keepAliveSocket();
    await new Promise<void>((done) => late.socket.once('close', () => done()));
    expect((late.events.error as NodeJS.ErrnoException | null)?.code).toBe('ECONNREFUSED');
    early.send(GET('/healthz'));
    const earlyAnswer = await early.answer();
    expect(earlyAnswer.status).toBe(200);
    expect(earlyAnswer.headers).toContain('connection: close');

    await drained;
    await backend.app.close();
    await backend.app.drain.closed;
    // Every socket is closed by now, the idle one too, and none was reset.
    await new Promise((resume) => setTimeout(resume, 100));
    for (const client of [busy, later, idle, ready, early]) {
      expect(client.events.closed).toBe(true);
      expect(client.events.error).toBeNull();
    }
  }, 20_000);
});

describe('a request that reaches the API once its close began', () => {
  it('is refused with 503 shutting_down in the envelope, with Retry-After, and its socket closed', async () => {
    const stopping = await startTestBackend({ RUN_WORKERS: 'false' });
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    // Holds the close in its first step, before sockets are closed, as the streams and the
    // claim writer do in a real stop.
    stopping.app.addHook('preClose', async () => held);
    const url = await stopping.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(url).port);
    const client = keepAliveSocket();
    await client.connected;
    client.send(GET('/healthz'));
    expect((await client.answer()).status).toBe(200);

    const closed = stopping.app.close();
    await new Promise((resume) => setTimeout(resume, 100));
    client.send(GET('/healthz'));
    const refused = await client.answerWithBody();
    release();
    await closed;
    expect(refused.status).toBe(503);
    expect(refused.headers).toContain('retry-after: 1');
    expect(refused.headers).toContain('connection: close');
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'shutting_down', message: expect.stringContaining('shutting down') } });
  }, 20_000);
});
