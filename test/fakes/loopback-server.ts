import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type LoopbackHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/** A node:http server on 127.0.0.1 with an ephemeral port, for fakes of outside services. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  /** Closes the listening socket and drops open connections: new connections are refused. */
  stopListening(): Promise<void>;
  /** Listens again on the same port after stopListening. */
  resumeListening(): Promise<void>;
  /** Runs `task` after `ms` unless the server is closed first, so no timer outlives a test. */
  after(ms: number, task: () => void): void;
  close(): Promise<void>;
}

export async function listenOnLoopback(handler: LoopbackHandler): Promise<LoopbackServer> {
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((request, response) => {
    // One request per connection: a client never holds a pooled socket to the fake, so after
    // stopListening its next request is refused rather than written into a dead connection.
    response.shouldKeepAlive = false;
    Promise.resolve(handler(request, response)).catch((error: unknown) => {
      // A fake that throws is a broken test fixture: answer loudly rather than hang the client.
      if (!response.headersSent) response.writeHead(599, { 'content-type': 'text/plain' });
      response.end(`fake server error: ${String(error)}`);
    });
  });
  let listening = false;

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        listening = true;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      server.closeAllConnections();
    });

  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    stopListening: stop,
    resumeListening: () => (listening ? Promise.resolve() : listen(port)),
    after(ms, task) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        task();
      }, ms);
      timers.add(timer);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await stop();
    },
  };
}

/** Reads a request body as text (the fakes only receive small JSON bodies). */
export async function readRequestText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
