import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { definitionStoreRoot } from '../../src/catalog/ingest-deps.js';
import { ingestProcessor, SWEEP_STAGING_JOB } from '../../src/catalog/ingest-processor.js';
import { startBackgroundWorkers, type BackgroundWorkers } from '../../src/queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../../src/queue/queue-keys.js';
import { bullConnection, redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { copyExampleCatalog } from '../helpers/example-catalog.js';
import { ndjsonLines, startWorkerProcess } from '../helpers/ingest-worker.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

let backend: TestBackend;
let catalog: string;
let restarted: BackgroundWorkers | undefined;
let queue: Queue;
let worker: ChildProcess | undefined;
const aborts = new AbortController();

beforeAll(async () => {
  catalog = copyExampleCatalog();
  // No worker in the API process: the scan runs in a separate `npm run worker` this test kills.
  backend = await startTestBackend({ CATALOG_DIR: catalog, RUN_WORKERS: 'false' });
  queue = new Queue(BACKGROUND_QUEUES.ingest, { connection: bullConnection(backend.config.redisUrl), prefix: backend.config.redisPrefix });
});
afterAll(async () => {
  // A failed assertion must not leave the worker running or the stream open under the close.
  if (worker && worker.exitCode === null && worker.signalCode === null) process.kill(-worker.pid!, 'SIGKILL');
  aborts.abort();
  await restarted?.close();
  await queue.close();
  await backend.close();
  rmSync(dirname(catalog), { recursive: true, force: true });
});

it('fails a scan whose worker was killed, with a reason, never re-runs it, and sweeps what it staged', async () => {
  const baseUrl = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  worker = await startWorkerProcess(backend, catalog);
  const response = await fetch(`${baseUrl}/ingest`, {
    signal: aborts.signal,
    method: 'POST', headers: { accept: 'application/x-ndjson', 'content-type': 'application/json' }, body: JSON.stringify({ force: true }),
  });
  const lines = ndjsonLines(response);
  const seen = [(await lines.next()).value!];
  expect(seen[0]).toMatchObject({ event: 'start' });

  // kill -9 mid-scan: the scan's lock is left to lapse; expire it now rather than wait 30 s.
  process.kill(-worker.pid!, 'SIGKILL');
  await once(worker, 'exit');
  const [active] = await queue.getActive();
  expect(active?.name).toBe('scan');
  const redis = new Redis(redisOptionsFromUrl(backend.config.redisUrl));
  await redis.del(`${backend.config.redisPrefix}:${BACKGROUND_QUEUES.ingest}:${active!.id}:lock`);
  redis.disconnect();
  // What a crash mid-copy leaves behind, whether or not the killed scan had got that far.
  const staging = join(definitionStoreRoot(backend.config), 'beacon', 'v1.1.0', '.staging-crashed');
  mkdirSync(join(staging, 'source'), { recursive: true });

  restarted = await startBackgroundWorkers([ingestProcessor], { config: backend.config, store: backend.store, log: backend.app.log });
  for await (const line of lines) seen.push(line);
  expect(seen.at(-1)).toEqual({
    event: 'error',
    code: 'ingest_interrupted',
    message: 'The ingest scan was interrupted: the process running it stopped mid-scan. It is not re-run by itself; send the request again.',
  });
  // Nothing ran the scan again: no second start, and the job failed with BullMQ's reason.
  expect(seen.filter((line) => line.event === 'start')).toHaveLength(1);
  // The line comes from the lapsed heartbeat, which may be ahead of the restarted worker's
  // stalled check that moves the job to failed.
  await until(async () => (await queue.getJobState(active!.id!)) === 'failed', 40_000, 'the stalled check to fail the killed scan');
  const failed = await queue.getJob(active!.id!);
  expect(failed!.failedReason).toBe('job stalled more than allowable limit');

  // The restarted process's sweep job ran in the scans' turn and removed every staging folder.
  const sweeps = (await queue.getJobs(['completed', 'waiting', 'active'])).filter((job) => job.name === SWEEP_STAGING_JOB);
  // One sweep per process that started the worker: the killed one's and the restarted one's.
  expect(sweeps).toHaveLength(2);
  // Polled rather than awaited through QueueEvents, which misses a completion it was not yet
  // listening for; bounded, as the sweep waits its turn behind the failed scan's slot.
  await vi.waitFor(async () => {
    for (const job of sweeps) expect(await job.getState()).toBe('completed');
  }, { timeout: 60_000, interval: 200 });
  expect(existsSync(staging)).toBe(false);
  const store = definitionStoreRoot(backend.config);
  const leftovers = readdirSync(store, { recursive: true, encoding: 'utf8' }).filter((path) => path.split('/').some((part) => part.startsWith('.staging-')));
  expect(leftovers).toEqual([]);
}, 90_000);
