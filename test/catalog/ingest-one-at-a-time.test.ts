import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ingestProcessor } from '../../src/catalog/ingest-processor.js';
import { startBackgroundWorkers, type BackgroundWorkers } from '../../src/queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../../src/queue/queue-keys.js';
import { bullConnection } from '../../src/redis/managed-redis.js';
import { BEACON_V1, copyExampleCatalog, LOW_TIDE, TUGLINE } from '../helpers/example-catalog.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let worker: BackgroundWorkers;
let catalog: string;

beforeAll(async () => {
  // Three kinds of version, one with mockups: each forced scan renders them again, so the
  // whole example catalog would make three scans slow without testing anything more.
  catalog = copyExampleCatalog([LOW_TIDE, TUGLINE, BEACON_V1]);
  // The API process runs an ingest worker (RUN_WORKERS); a second one stands for `npm run worker`.
  backend = await startTestBackend({ CATALOG_DIR: catalog });
  worker = await startBackgroundWorkers([ingestProcessor], { config: backend.config, store: backend.store, log: backend.app.log });
});
afterAll(async () => {
  await worker.close();
  await backend.close();
  rmSync(dirname(catalog), { recursive: true, force: true });
});

it('runs ingest scans one at a time across processes sharing the queue', async () => {
  const scans = await Promise.all(
    Array.from({ length: 3 }, () => backend.app.inject({ method: 'POST', url: '/ingest', payload: { force: true } })),
  );
  for (const scan of scans) {
    const report = scan.json();
    expect(report).toMatchObject({ failed: 0, ingested: report.total });
  }

  const queue = new Queue(BACKGROUND_QUEUES.ingest, { connection: bullConnection(backend.config.redisUrl), prefix: backend.config.redisPrefix });
  try {
    expect(await queue.getGlobalConcurrency()).toBe(1);
    const jobs = (await queue.getJobs(['completed'])).filter((job) => job.name === 'scan').sort((a, b) => a.processedOn! - b.processedOn!);
    expect(jobs).toHaveLength(3);
    // Each scan started only after the one before it had finished.
    for (const [before, after] of jobs.slice(1).map((job, i) => [jobs[i]!, job] as const)) {
      expect(after.processedOn!).toBeGreaterThanOrEqual(before.finishedOn!);
    }
  } finally {
    await queue.close();
  }
});
