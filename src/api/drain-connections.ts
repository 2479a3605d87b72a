import { Server as NetServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { SECOND } from '../time.js';

/**
 * How long a stopping API goes on serving before it stops listening (ms): long enough for
 * a balancer to see `/readyz` answer 503 and for each open keep-alive socket to carry the
 * request its client may already be sending.
 */
export const DRAIN_MS = 3 * SECOND;
/** How often the drain looks whether every socket has closed (ms). */
const POLL_MS = 25;

export interface Drain {
  /** True once draining began: every answer closes its connection and `/readyz` answers 503. */
  readonly started: boolean;
  /**
   * Drains the server's connections, then resolves; the caller closes the app after and
   * then awaits `closed`. Every answer now carries `Connection: close`, so a keep-alive
   * socket closes right after the answer its client asked for. For the first half of
   * `drainMs` new connections are still taken (a balancer reads `/readyz` 503); then the
   * port stops listening, so a late client is refused (nothing sent, safe to try elsewhere)
   * and every socket already open has the second half to carry the request its client may
   * be sending. A socket idle all through is closed at the end. Closing idle sockets at once
   * reset the requests clients were sending on them just then (7 in a rolling restart), and
   * listening to the end reset connections accepted an instant before it (2).
   */
  begin(drainMs?: number): Promise<void>;
  /** Settles once the port stopped listening and every connection has closed. */
  readonly closed: Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    drain: Drain;
  }
}

/** Tracks the server's sockets and the requests in flight on each, and decorates `drain`. */
export function installDrain(instance: FastifyInstance): Drain {
  const inFlight = new Map<Socket, number>();
  instance.server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  instance.server.on('request', (request, response) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const count = inFlight.get(socket);
      if (count !== undefined) inFlight.set(socket, count - 1);
    });
  });
  let started = false;
  let closed: Promise<void> = Promise.resolve();
  const waitForSockets = async (until: number) => {
    while (inFlight.size > 0 && Date.now() < until) await sleep(POLL_MS);
  };
  const drain: Drain = {
    get started() {
      return started;
    },
    get closed() {
      return closed;
    },
    async begin(drainMs = DRAIN_MS) {
      if (started) return;
      started = true;
      const until = Date.now() + drainMs;
      await waitForSockets(until - drainMs / 2);
      if (instance.server.listening) {
        // net's close, not http's: http's also closes idle sockets at once, the reset above.
        closed = new Promise((done) => NetServer.prototype.close.call(instance.server, () => done()));
      }
      await waitForSockets(until);
      // Still idle after the whole window: no request of theirs is lost by closing them now.
      for (const [socket, count] of inFlight) if (count === 0) socket.destroy();
    },
  };
  instance.decorate('drain', drain);
  return drain;
}
