import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import { redisOptionsFromUrl } from '../src/redis/managed-redis.js';
import { benchRedis } from './lib/bench-redis.js';
import { keepAliveClient } from './lib/keep-alive-client.js';
import { ms, printTable, timeSequential, type LatencySummary } from './lib/stats.js';

export interface Floors {
  noopPost: LatencySummary;
  redisRoundTrip: LatencySummary;
}

/** A Fastify server with one no-op POST route, `/noop`: the cheapest request the stack answers. */
export async function startNoopServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = Fastify({ logger: false });
  server.post('/noop', async () => ({ ok: true }));
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => server.close() };
}

/**
 * The floors later benchmarks are compared against, measured in the same run:
 * a Fastify no-op POST over one keep-alive loopback connection, and a raw Redis round trip.
 */
export async function measureFloors(redisUrl: string, iterations = 5000): Promise<Floors> {
  const server = await startNoopServer();
  const client = keepAliveClient(server.url);
  // No body, like a claim: the floor is the same request shape as POST /jobs/next.
  const noopPost = await timeSequential(iterations, 500, () => client.send('POST', '/noop'));
  client.close();
  await server.close();

  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  const redisRoundTrip = await timeSequential(iterations, 500, () => redis.ping());
  redis.disconnect();
  return { noopPost, redisRoundTrip };
}

export default async function benchFloors(): Promise<Floors> {
  const redis = await benchRedis();
  try {
    const floors = await measureFloors(redis.url);
    printTable('Floors (same run, sequential, keep-alive loopback)', [
      { measure: 'Fastify no-op POST', p50: ms(floors.noopPost.p50), p99: ms(floors.noopPost.p99), samples: floors.noopPost.count },
      { measure: 'raw Redis PING', p50: ms(floors.redisRoundTrip.p50), p99: ms(floors.redisRoundTrip.p99), samples: floors.redisRoundTrip.count },
    ]);
    return floors;
  } finally {
    await redis.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchFloors();
