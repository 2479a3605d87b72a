import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { expect, inject, it } from 'vitest';
import { registerBackgroundProcessor, startBackgroundWorkers } from '../../src/queue/background-workers.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';

it('runs every registered processor against the shared Redis, competing for jobs across workers', async () => {
  const prefix = `tw${randomUUID().slice(0, 8)}`;
  const connection = { ...redisOptionsFromUrl(inject('redisUrl')), maxRetriesPerRequest: null };
  const seen: string[] = [];
  registerBackgroundProcessor({ queue: 'probe-test', processor: async (job) => void seen.push(job.id!), concurrency: 2 });
  expect(() => registerBackgroundProcessor({ queue: 'probe-test', processor: async () => {} })).toThrow(/already registered/);

  // Two processes' worth of workers on the same queue, as the API process and `npm run worker` are.
  const first = await startBackgroundWorkers(connection, prefix, () => {});
  const second = await startBackgroundWorkers(connection, prefix, () => {});
  const queue = new Queue('probe-test', { connection, prefix });
  const events = new QueueEvents('probe-test', { connection, prefix });
  await events.waitUntilReady();
  try {
    const jobs = await queue.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'x', data: { i } })));
    await Promise.all(jobs.map((job) => job.waitUntilFinished(events, 5000)));
    expect(seen.sort()).toEqual(jobs.map((job) => job.id!).sort());
    expect(first.queues).toEqual(['probe-test']);
  } finally {
    await Promise.all([first.close(), second.close(), queue.close(), events.close()]);
  }
});
