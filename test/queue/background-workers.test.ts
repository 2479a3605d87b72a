import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { openDatabase } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { startBackgroundWorkers, type BackgroundProcessor, type BackgroundWorkers, type WorkerLog } from '../../src/queue/background-workers.js';
import { openDeploymentQueues } from '../../src/queue/deployment-queues.js';
import { BACKGROUND_QUEUES } from '../../src/queue/queue-keys.js';
import { bullConnection, redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { startTestBackend } from '../helpers/test-backend.js';

/** A background queue the processors below stand in for; the prefix is fresh per test. */
const QUEUE = BACKGROUND_QUEUES.publish;
const quiet: WorkerLog = { info() {}, warn() {}, error() {} };

function setup() {
  const redisUrl = inject('redisUrl');
  const prefix = `tw${randomUUID().slice(0, 8)}`;
  const config = { ...loadConfig({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, LOG_LEVEL: 'silent' }), redisUrl };
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'evb-bw-')), 'backend.sqlite'));
  const queue = new Queue(QUEUE, { connection: bullConnection(redisUrl), prefix });
  return { redisUrl, prefix, config, db, store: sqliteStore<StoreSchema>(db), queue };
}

it('runs every processor against the shared Redis, competing for jobs across processes, and closes what they opened', async () => {
  const { redisUrl, prefix, config, db, store, queue } = setup();
  const seen: Array<[string, string]> = [];
  let closed = 0;
  // Each worker holds its first job until the other one has started one too: a worker that
  // took every job would never see the other start, and its jobs would time out.
  let bothStarted!: () => void;
  const both = new Promise<void>((done) => (bothStarted = done));
  const processor = (name: string): BackgroundProcessor => ({
    queue: QUEUE,
    concurrency: 2,
    start: (context) => {
      expect(context.store).toBe(store);
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
  const first = await startBackgroundWorkers([processor('api')], { config, store, log: quiet });
  const second = await startBackgroundWorkers([processor('worker')], { config, store, log: quiet });
  const events = new QueueEvents(QUEUE, { connection: bullConnection(redisUrl), prefix });
  await events.waitUntilReady();
  try {
    const jobs = await queue.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'x', data: { i } })));
    // Each waiting job listens for the queue closing; 20 at once trip Node's leak warning at 10.
    queue.setMaxListeners(jobs.length + 1);
    await Promise.all(jobs.map((job) => job.waitUntilFinished(events, 10_000)));
    expect(seen.map(([, id]) => id).sort()).toEqual(jobs.map((job) => job.id!).sort());
    expect(new Set(seen.map(([who]) => who))).toEqual(new Set(['api', 'worker']));
    expect(first.queues).toEqual([QUEUE]);
  } finally {
    await Promise.all([first.close(), second.close(), queue.close(), events.close()]);
    db.close();
  }
  expect(closed).toBe(2);
});

it('closes within its grace period while a job is still running, and says so', async () => {
  const { config, db, store, queue } = setup();
  let started!: () => void;
  const running = new Promise<void>((done) => (started = done));
  const warnings: string[] = [];
  const workers = await startBackgroundWorkers(
    [{ queue: QUEUE, start: () => ({ processor: () => (started(), new Promise(() => {})) }) }],
    { config, store, log: { ...quiet, warn: (_object, message) => void warnings.push(message) } },
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

it('runs only the queues WORKER_QUEUES lists: an ingest job waits for a set that lists ingest, and the status shows no other set on it', async () => {
  const { redisUrl, prefix, db, store } = setup();
  const configFor = (queues: string) => ({ ...loadConfig({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, LOG_LEVEL: 'silent', WORKER_QUEUES: queues }), redisUrl });
  const ran: Array<[string, string]> = [];
  const processors = (set: string): BackgroundProcessor[] =>
    [BACKGROUND_QUEUES.ingest, BACKGROUND_QUEUES.publish].map((queue) => ({ queue, start: () => ({ processor: async () => void ran.push([set, queue]) }) }));
  const connection = bullConnection(redisUrl);
  const ingest = new Queue(BACKGROUND_QUEUES.ingest, { connection, prefix });
  const publish = new Queue(BACKGROUND_QUEUES.publish, { connection, prefix });
  const ingestEvents = new QueueEvents(BACKGROUND_QUEUES.ingest, { connection, prefix });
  const publishEvents = new QueueEvents(BACKGROUND_QUEUES.publish, { connection, prefix });
  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  const deployment = openDeploymentQueues(redis, prefix);
  const workingOn = async () => new Set((await deployment.workers()).map((worker) => worker.queue));
  await Promise.all([ingestEvents.waitUntilReady(), publishEvents.waitUntilReady()]);
  const publishOnly = await startBackgroundWorkers(processors('publish only'), { config: configFor('publish'), store, log: quiet });
  let both: BackgroundWorkers | undefined;
  try {
    expect(publishOnly.queues).toEqual(['publish']);
    expect(await workingOn()).toEqual(new Set(['publish']));
    const scan = await ingest.add('scan', {});
    await (await publish.add('publish', {})).waitUntilFinished(publishEvents, 10_000);
    expect(await scan.getState()).toBe('waiting');

    both = await startBackgroundWorkers(processors('ingest and publish'), { config: configFor('ingest,publish'), store, log: quiet });
    await scan.waitUntilFinished(ingestEvents, 10_000);
    expect(ran.filter(([, queue]) => queue === BACKGROUND_QUEUES.ingest)).toEqual([['ingest and publish', 'ingest']]);
    expect(await workingOn()).toEqual(new Set(['ingest', 'publish']));
  } finally {
    await Promise.all([publishOnly.close(), both?.close(), ingest.close(), publish.close(), ingestEvents.close(), publishEvents.close(), deployment.close()]);
    redis.disconnect();
    db.close();
  }
});

it('refuses to start the set when one processor cannot start, and closes what the others opened', async () => {
  const { config, db, store, queue } = setup();
  let closed = 0;
  const fine: BackgroundProcessor = { queue: BACKGROUND_QUEUES.publish, start: ({ store: given }) => (expect(given).toBe(store), { processor: async () => {}, close: async () => void closed++ }) };
  const broken: BackgroundProcessor = {
    queue: BACKGROUND_QUEUES.ingest,
    start: () => {
      throw new Error('cannot start the ingest processor');
    },
  };
  try {
    await expect(startBackgroundWorkers([fine, broken], { config, store, log: quiet })).rejects.toThrow('cannot start the ingest processor');
    expect(closed).toBe(1);
  } finally {
    await queue.close();
    db.close();
  }
});

it('runs in the API process (RUN_WORKERS) only the queues its WORKER_QUEUES lists, as GET /status shows', async () => {
  const backend = await startTestBackend({ WORKER_QUEUES: 'publish,snapshot' });
  try {
    const response = await backend.app.inject('/status');
    expect(response.statusCode).toBe(200);
    const workers: Array<{ queue: string }> = response.json().workers;
    expect(new Set(workers.map((worker) => worker.queue))).toEqual(new Set(['publish', 'snapshot']));
  } finally {
    await backend.close();
  }
});
