import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ingestProcessor } from '../../src/catalog/ingest-processor.js';
import { startBackgroundWorkers, type BackgroundWorkers } from '../../src/queue/background-workers.js';
import { backgroundKeys } from '../../src/queue/queue-keys.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { copyExampleCatalog } from '../helpers/example-catalog.js';
import { ndjsonLines, startWorkerProcess } from '../helpers/ingest-worker.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

const INTERRUPTED = 'The ingest scan was interrupted: the process running it stopped mid-scan. It is not re-run by itself; send the request again.';

let backend: TestBackend;
let catalog: string;
let baseUrl: string;
let redis: Redis;
let restarted: BackgroundWorkers | undefined;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  catalog = copyExampleCatalog();
  // No worker in the API process: each scan runs in a separate `npm run worker` a test kills.
  backend = await startTestBackend({ CATALOG_DIR: catalog, RUN_WORKERS: 'false' });
  baseUrl = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  redis = new Redis(redisOptionsFromUrl(backend.config.redisUrl));
});
afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null && worker.signalCode === null) process.kill(-worker.pid!, 'SIGKILL');
  await restarted?.close();
  redis.disconnect();
  await backend.close();
  rmSync(dirname(catalog), { recursive: true, force: true });
});

const ingest = (accept: string, body: object = { force: true }) =>
  fetch(`${baseUrl}/ingest`, { method: 'POST', headers: { accept, 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function startWorker(): Promise<ChildProcess> {
  const worker = await startWorkerProcess(backend, catalog);
  workers.push(worker);
  return worker;
}

/** Kills `worker` -9 once it runs a scan (its heartbeat is there); answers when it died. */
async function killMidScan(worker: ChildProcess): Promise<number> {
  const alive = backgroundKeys(backend.config.redisPrefix).ingestAlive('*');
  // Up to a minute: a scan killed by an earlier test holds the queue's one slot until its lock lapses.
  await until(async () => (await redis.keys(alive)).length > 0, 60_000, 'the worker to run the scan');
  process.kill(-worker.pid!, 'SIGKILL');
  await once(worker, 'exit');
  return Date.now();
}

it('answers 503 ingest_interrupted with Retry-After soon after the worker running the scan is killed, well before its 30 s lock lapses', async () => {
  const answer = ingest('application/json');
  const killedAt = await killMidScan(await startWorker());
  const response = await answer;
  const waited = Date.now() - killedAt;

  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('30');
  expect(await response.json()).toEqual({ error: { code: 'ingest_interrupted', message: INTERRUPTED } });
  // The heartbeat's TTL (10 s) and two looks 2 s apart; BullMQ alone tells after 30 s at least.
  expect(waited).toBeLessThan(20_000);
}, 90_000);

it('closes an NDJSON progress stream with an ingest_interrupted error line, and a retry then runs the scan', async () => {
  const answer = ingest('application/x-ndjson');
  const worker = await startWorker();
  // The status comes with the scan's first line: the kill must come after it, or the answer is a 503.
  const response = await answer;
  expect(response.status).toBe(200);
  const lines = ndjsonLines(response);
  const seen = [(await lines.next()).value!];
  expect(seen[0]).toMatchObject({ event: 'start' });
  const killedAt = await killMidScan(worker);
  for await (const line of lines) seen.push(line);
  expect(Date.now() - killedAt).toBeLessThan(20_000);
  expect(seen.at(-1)).toEqual({ event: 'error', code: 'ingest_interrupted', message: INTERRUPTED });

  // A retry sent at once waits for BullMQ to fail the dead scans, then runs.
  restarted = await startBackgroundWorkers([ingestProcessor], { config: backend.config, store: backend.store, log: backend.app.log });
  const retry = await ingest('application/json', {});
  expect(retry.status).toBe(200);
  const report = await retry.json() as { total: number; failed: number };
  expect(report.total).toBeGreaterThan(0);
  expect(report.failed).toBe(0);
}, 180_000);
