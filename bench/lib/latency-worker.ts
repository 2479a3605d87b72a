/**
 * A worker thread that times one dispatcher's claims against their floors, interleaved round
 * by round: a no-op POST, the raw claim script, and `POST /jobs/next`. It runs off the
 * server's thread, as a real dispatcher runs in another process, so work the server does
 * after answering (response hooks, the claim's deferred store write) is not charged to the
 * caller's wait. The raw claim is called from here too, over this thread's own connection.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Redis } from 'ioredis';
import { RunQueue } from '../../src/queue/run-queue.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { keepAliveClient } from './keep-alive-client.js';
import { timeInterleaved, type LatencySummary } from './stats.js';

export interface LatencyInput {
  noopUrl: string;
  appUrl: string;
  token: string;
  redisUrl: string;
  /** Prefix of the queue the raw claims take from (filled by the caller). */
  rawPrefix: string;
  iterations: number;
  warmup: number;
}

/** The no-op POST, the raw claim script and the claim, in that order. */
export type LatencyOutput = [LatencySummary, LatencySummary, LatencySummary];

async function run(input: LatencyInput): Promise<LatencyOutput> {
  const redis = new Redis(redisOptionsFromUrl(input.redisUrl));
  const raw = new RunQueue({ redis, prefix: input.rawPrefix });
  const noop = keepAliveClient(input.noopUrl);
  const app = keepAliveClient(input.appUrl);
  const headers = { authorization: `Bearer ${input.token}` };
  const tokenHash = '0'.repeat(64);
  try {
    return await timeInterleaved(input.iterations, input.warmup, [
      () => noop.send('POST', '/noop'),
      () => raw.claim(tokenHash),
      () => app.send('POST', '/jobs/next', undefined, headers),
    ]) as LatencyOutput;
  } finally {
    noop.close();
    app.close();
    await raw.close();
    redis.disconnect();
  }
}

if (parentPort) parentPort.postMessage(await run(workerData as LatencyInput));
