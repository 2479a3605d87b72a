import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it, inject } from 'vitest';
import { HttpError } from '../../src/errors.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { failFastOptions } from '../../src/redis/redis-connections.js';
import { RunQueue, type QueuedRun } from '../../src/queue/run-queue.js';
import { startRedisFaultProxy, type RedisFaultProxy } from '../helpers/redis-fault-proxy.js';

// Issue 39 item 16: an API cut from Redis answered 503 while its claim script sat in the
// held connection; when the partition healed the script ran and claimed a job nobody would
// drive. A claim carries a deadline the script checks against Redis's own clock.

const redis = new Redis(redisOptionsFromUrl(inject('redisUrl')));
let proxy: RedisFaultProxy;
let cutOff: Redis;
let prefix: string;
let direct: RunQueue;
let partitioned: RunQueue;

const DEADLINE_MS = 400;

beforeEach(async () => {
  proxy = await startRedisFaultProxy(inject('redisUrl'));
  // The serving connection's own options: fail fast, 5 s command timeout.
  cutOff = new Redis({ ...failFastOptions(proxy.url), lazyConnect: true });
  await cutOff.connect();
  prefix = `tq${randomUUID().slice(0, 8)}`;
  direct = new RunQueue({ redis, prefix });
  partitioned = new RunQueue({ redis: cutOff, prefix, claimDeadlineMs: DEADLINE_MS });
});
afterEach(async () => {
  proxy.heal();
  await direct.close();
  await partitioned.close();
  cutOff.disconnect();
  await proxy.close();
});
afterAll(() => redis.disconnect());

const run = (): QueuedRun => {
  const id = randomUUID();
  return { id, seq: 1, harness: 'claude', jam: '', request: { testCase: 'carom' }, subjectJson: `"runId":"${id}"`, origin: null, maxRuntimeSeconds: 1 };
};

/** How a claim settled and after how many ms; 'pending' when it had not within `limitMs`. */
async function settle(claim: Promise<unknown>, limitMs: number): Promise<{ outcome: 'answered' | 'failed' | 'pending'; ms: number; error?: unknown }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    claim.then(() => ({ outcome: 'answered' as const }), (error: unknown) => ({ outcome: 'failed' as const, error })),
    new Promise<{ outcome: 'pending' }>((done) => (timer = setTimeout(() => done({ outcome: 'pending' }), limitMs))),
  ]);
  clearTimeout(timer);
  return { ...result, ms: Date.now() - started };
}

describe('claim deadline', () => {
  it('a claim held by a partition fails by its deadline, and claims nothing when the partition heals', async () => {
    // The script is loaded on this connection before the cut, as on a serving API.
    expect((await partitioned.claim('warm')).claimed).toBeNull();
    const job = run();
    await direct.add([job]);
    proxy.partition();
    const first = partitioned.claim('late-1');
    // A claim asked for while the first call is out waits behind it, bounded by its own deadline.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = partitioned.claim('late-2');
    const [a, b] = await Promise.all([settle(first, 3000), settle(second, 3000)]);
    for (const settled of [a, b]) {
      expect(settled.outcome).toBe('failed');
      expect(settled.ms).toBeLessThan(DEADLINE_MS + 300);
      expect(settled.error).toBeInstanceOf(HttpError);
      expect((settled.error as HttpError).code).toBe('queue_unavailable');
    }
    proxy.heal();
    // The held scripts run before this, on the same connection.
    expect(await cutOff.ping()).toBe('PONG');
    expect((await direct.states([job.id]))[0]).toMatchObject({ state: 'queued' });
    expect(await direct.tokenHash(job.id)).toBeNull();
    // The job is still claimable, by anyone.
    expect((await direct.claim('on-time')).claimed?.id).toBe(job.id);
    expect(await direct.tokenHash(job.id)).toBe('on-time');
  });

  it('a claim whose deadline has passed by Redis\'s clock when its script runs claims nothing', async () => {
    const job = run();
    await direct.add([job]);
    // Redis's clock says the deadline passed a second ago: the script looks at nothing.
    const late = await direct.claimBefore(['past'], await redisNowMs() - 1000);
    expect(late).toBe('late');
    expect((await direct.states([job.id]))[0]).toMatchObject({ state: 'queued' });
    expect((await direct.claim('now')).claimed?.id).toBe(job.id);
  });
});

async function redisNowMs(): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}
