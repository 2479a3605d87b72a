import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open-database.js';
import { startBackgroundWorkers, type BackgroundProcessor, type WorkerLog } from '../../src/queue/background-workers.js';
import { bullConnection } from '../../src/redis/managed-redis.js';

const quiet: WorkerLog = { info() {}, warn() {}, error() {} };

function setup() {
  const redisUrl = inject('redisUrl');
  const prefix = `tw${randomUUID().slice(0, 8)}`;
  const config = { ...loadConfig({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, LOG_LEVEL: 'silent' }), redisUrl };
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'evb-bw-')), 'backend.sqlite'));
  const queue = new Queue('probe-test', { connection: bullConnection(redisUrl), prefix });
  return { redisUrl, prefix, config, db, queue };
}

it('runs every processor against the shared Redis, competing for jobs across processes, and closes what they opened', async () => {
  const { redisUrl, prefix, config, db, queue } = setup();
  const seen: Array<[string, string]> = [];
  let closed = 0;
  // Each worker holds its first job until the other one has started one too: a worker that
  // took every job would never see the other start, and its jobs would time out.
  let bothStarted!: () => void;
  const both = new Promise<void>((done) => (bothStarted = done));
  const processor = (name: string): BackgroundProcessor => ({
    queue: 'probe-test',
    concurrency: 2,
    start: (context) => {
      expect(context.db).toBe(db);
      return {
        processor: async (job) => {
          seen.push([name, job.id!]);
          if (new Set(seen.map(([who]) => who)).size === 2) bothStarted();
          await both;
        },
        close: async () => void closed++,
      };
    },
  });

  // Two processes' worth of workers on the same queue, as the API process and `npm run worker` are.
  const first = await startBackgroundWorkers([processor('api')], { config, db, log: quiet });
  const second = await startBackgroundWorkers([processor('worker')], { config, db, log: quiet });
  const events = new QueueEvents('probe-test', { connection: bullConnection(redisUrl), prefix });
  await events.waitUntilReady();
  try {
    const jobs = await queue.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'x', data: { i } })));
    // Each waiting job listens for the queue closing; 20 at once trip Node's leak warning at 10.
    queue.setMaxListeners(jobs.length + 1);
    await Promise.all(jobs.map((job) => job.waitUntilFinished(events, 10_000)));
    expect(seen.map(([, id]) => id).sort()).toEqual(jobs.map((job) => job.id!).sort());
    expect(new Set(seen.map(([who]) => who))).toEqual(new Set(['api', 'worker']));
    expect(first.queues).toEqual(['probe-test']);
  } finally {
    await Promise.all([first.close(), second.close(), queue.close(), events.close()]);
    db.close();
  }
  expect(closed).toBe(2);
});

it('closes within its grace period while a job is still running, and says so', async () => {
  const { config, db, queue } = setup();
  let started!: () => void;
  const running = new Promise<void>((done) => (started = done));
  const warnings: string[] = [];
  const workers = await startBackgroundWorkers(
    [{ queue: 'probe-test', start: () => ({ processor: () => (started(), new Promise(() => {})) }) }],
    { config, db, log: { ...quiet, warn: (_object, message) => void warnings.push(message) } },
    300,
  );
  try {
    await queue.add('stuck', {});
    await running;
    const began = Date.now();
    await workers.close();
    expect(Date.now() - began).toBeLessThan(3000);
    expect(warnings).toContain('background jobs still running at close; leaving them to be retried elsewhere');
  } finally {
    await queue.close();
    db.close();
  }
});
