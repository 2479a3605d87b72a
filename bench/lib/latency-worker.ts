/**
 * A worker thread that times one dispatcher's claims against their floors, interleaved round
 * by round: a no-op POST, the raw claim script (when a queue was filled for it), then
 * `POST /jobs/next` on each app in turn. It runs off the server's thread, as a real
 * dispatcher runs in another process, so work the server does after answering (response
 * hooks, the claim's deferred store write) is not charged to the caller's wait. The raw
 * claim is called from here too, over this thread's own connection.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Redis } from 'ioredis';
import { RunQueue } from '../../src/queue/run-queue.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { keepAliveClient } from './keep-alive-client.js';
import { timeInterleaved, type LatencySummary } from './stats.js';

export interface LatencyInput {
  noopUrl: string;
  /** Apps whose claims are timed, each one `POST /jobs/next` per round. */
  appUrls: string[];
  token: string;
  /** The queue the raw claims take from (filled by the caller), or null for no raw series. */
  raw: { redisUrl: string; prefix: string } | null;
  iterations: number;
  warmup: number;
}

export interface LatencyOutput {
  noopPost: LatencySummary;
  rawClaim: LatencySummary | null;
  /** One per app, in `appUrls` order. */
  claims: LatencySummary[];
}

async function run(input: LatencyInput): Promise<LatencyOutput> {
  const redis = input.raw && new Redis(redisOptionsFromUrl(input.raw.redisUrl));
  const raw = redis && new RunQueue({ redis, prefix: input.raw!.prefix });
  const noop = keepAliveClient(input.noopUrl);
  const apps = input.appUrls.map((url) => keepAliveClient(url));
  const headers = { authorization: `Bearer ${input.token}` };
  const tokenHash = '0'.repeat(64);
  try {
    const [noopPost, ...rest] = await timeInterleaved(input.iterations, input.warmup, [
      () => noop.send('POST', '/noop'),
      ...(raw ? [() => raw.claim(tokenHash)] : []),
      ...apps.map((app) => () => app.send('POST', '/jobs/next', undefined, headers)),
    ]);
    return { noopPost: noopPost!, rawClaim: raw ? rest.shift()! : null, claims: rest };
  } finally {
    noop.close();
    for (const app of apps) app.close();
    await raw?.close();
    redis?.disconnect();
  }
}

if (parentPort) parentPort.postMessage(await run(workerData as LatencyInput));
