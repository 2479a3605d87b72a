import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RunQueue, type QueuedRun } from '../../src/queue/run-queue.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { BENCH_LAUNCH } from './claim-app.js';

/**
 * The raw Redis call a claim makes, for the claim floor: a run queue of its own, filled with
 * `jobs` jobs, whose claim script the floor calls alone over a plain ioredis connection.
 * Answers the queue's prefix.
 */
export async function fillRawClaimQueue(redisUrl: string, jobs: number): Promise<string> {
  const prefix = `bench-raw-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  const queue = new RunQueue({ redis, prefix });
  for (let i = 0; i < jobs; i += 1000) {
    const runs: QueuedRun[] = Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => {
      const id = randomUUID();
      return { id, seq: i + j, harness: BENCH_LAUNCH.harness, jam: '', request: BENCH_LAUNCH, subjectJson: `"runId":"${id}"`, origin: null, maxRuntimeSeconds: 1800 };
    });
    await queue.add(runs);
  }
  await queue.close();
  redis.disconnect();
  return prefix;
}
