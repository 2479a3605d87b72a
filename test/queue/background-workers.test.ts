import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open-database.js';
import { startBackgroundWorkers, type BackgroundProcessor } from '../../src/queue/background-workers.js';
import { bullConnection } from '../../src/redis/managed-redis.js';

it('runs every processor against the shared Redis, competing for jobs across processes, and closes what they opened', async () => {
  const redisUrl = inject('redisUrl');
  const prefix = `tw${randomUUID().slice(0, 8)}`;
  const config = { ...loadConfig({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, LOG_LEVEL: 'silent' }), redisUrl };
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'evb-bw-')), 'backend.sqlite'));
  const seen: Array<[string, string]> = [];
  let closed = 0;
  const processor = (name: string): BackgroundProcessor => ({
    queue: 'probe-test',
    concurrency: 2,
    start: (context) => {
      expect(context.db).toBe(db);
      return { processor: async (job) => void seen.push([name, job.id!]), close: async () => void closed++ };
    },
  });

  // Two processes' worth of workers on the same queue, as the API process and `npm run worker` are.
  const first = await startBackgroundWorkers([processor('api')], { config, db }, () => {});
  const second = await startBackgroundWorkers([processor('worker')], { config, db }, () => {});
  const connection = bullConnection(redisUrl);
  const queue = new Queue('probe-test', { connection, prefix });
  const events = new QueueEvents('probe-test', { connection, prefix });
  await events.waitUntilReady();
  try {
    const jobs = await queue.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'x', data: { i } })));
    // Each waiting job listens for the queue closing; 20 at once trip Node's leak warning at 10.
    queue.setMaxListeners(jobs.length + 1);
    await Promise.all(jobs.map((job) => job.waitUntilFinished(events, 5000)));
    expect(seen.map(([, id]) => id).sort()).toEqual(jobs.map((job) => job.id!).sort());
    expect(first.queues).toEqual(['probe-test']);
  } finally {
    await Promise.all([first.close(), second.close(), queue.close(), events.close()]);
    db.close();
  }
  expect(closed).toBe(2);
});
