import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';

/**
 * Where a cut falls: `request` drops the matched request and the connection before Redis
 * sees it; `reply` forwards the request and, instead of Redis's answer, drops the connection
 * (Redis applied it and the client never hears so).
 */
export type Fault = 'request' | 'reply';

/**
 * A loopback TCP proxy in front of the real redis-server that cuts connections on cue: the
 * faults a network or a dying Redis makes, made for real, with no module of ours replaced.
 */
export interface RedisFaultProxy {
  /** `redis://127.0.0.1:<port>`: clients given it reach Redis through the proxy. */
  url: string;
  /**
   * Cuts the connection carrying each of the next `times` client writes that contain one of
   * `markers`, once `skip` such writes have gone through untouched.
   */
  cutOn(markers: string[], fault: Fault, options?: { skip?: number; times?: number }): void;
  /**
   * A network partition: from now on nothing crosses in either direction, and no
   * connection is closed; what is sent meanwhile is held, as TCP would keep retransmitting
   * it, and delivered in order by `heal`. New connections are accepted but reach nothing.
   */
  partition(): void;
  /** Ends the partition: every held byte goes on to its side, in order. */
  heal(): void;
  /** Connections cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

export async function startRedisFaultProxy(redisUrl: string): Promise<RedisFaultProxy> {
  const upstream = redisOptionsFromUrl(redisUrl);
  const sockets = new Set<Socket>();
  let rule: { markers: string[]; fault: Fault; skip: number; times: number } | null = null;
  let cuts = 0;
  let partitioned = false;
  /** Writes held by the partition, in the order they were made. */
  let held: Array<() => void> = [];
  /** Writes `chunk` to `socket` now, or when the partition heals. */
  const pass = (socket: Socket, chunk: Buffer) => {
    if (partitioned) held.push(() => socket.write(chunk));
    else socket.write(chunk);
  };

  /** True when this client write is the one to cut (and counts it). */
  const matches = (chunk: Buffer): boolean => {
    if (!rule || rule.times === 0 || !rule.markers.some((marker) => chunk.includes(marker))) return false;
    if (rule.skip > 0) {
      rule.skip -= 1;
      return false;
    }
    rule.times -= 1;
    return true;
  };

  const server = createServer((client) => {
    const redis = upstream.path ? connect(upstream.path) : connect(upstream.port!, upstream.host);
    for (const socket of [client, redis]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    const cut = () => {
      cuts += 1;
      client.destroy();
      redis.destroy();
    };
    // After a `reply` cut is armed, Redis's answers are held back; the connection is cut at
    // the first array reply (every run-queue script answers an array; PUBLISH, HSET answer integers).
    let dropReplies = false;
    client.on('data', (chunk: Buffer) => {
      if (!dropReplies && matches(chunk)) {
        if (rule!.fault === 'request') return cut();
        dropReplies = true;
      }
      pass(redis, chunk);
    });
    redis.on('data', (chunk: Buffer) => {
      if (!dropReplies) pass(client, chunk);
      else if (chunk.includes('*')) cut();
    });
    client.on('close', () => redis.destroy());
    redis.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `redis://127.0.0.1:${port}`,
    cutOn(markers, fault, options = {}) {
      rule = { markers, fault, skip: options.skip ?? 0, times: options.times ?? 1 };
    },
    partition() {
      partitioned = true;
    },
    heal() {
      partitioned = false;
      const writes = held;
      held = [];
      for (const write of writes) write();
    },
    get cuts() {
      return cuts;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
