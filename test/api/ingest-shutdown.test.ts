import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { Queue } from 'bullmq';
import { afterEach, expect, it } from 'vitest';
import { BACKGROUND_QUEUES } from '../../src/queue/queue-keys.js';
import { bullConnection } from '../../src/redis/managed-redis.js';
import { copyExampleCatalog } from '../helpers/example-catalog.js';
import { ndjsonLines, startWorkerProcess } from '../helpers/ingest-worker.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

const STOPPING = 'The service is stopping, so this ingest is followed no further; send the request again once it is back.';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A backend with no ingest worker of its own, on a copy of the example catalog. */
async function backendWithoutWorker(): Promise<{ backend: TestBackend; catalog: string; baseUrl: string }> {
  const catalog = copyExampleCatalog();
  cleanups.push(() => rmSync(dirname(catalog), { recursive: true, force: true }));
  const backend = await startTestBackend({ CATALOG_DIR: catalog, RUN_WORKERS: 'false' });
  cleanups.push(() => backend.close().catch(() => {}));
  return { backend, catalog, baseUrl: await backend.app.listen({ host: '127.0.0.1', port: 0 }) };
}

const ingest = (baseUrl: string, accept: string) =>
  fetch(`${baseUrl}/ingest`, { method: 'POST', headers: { accept, 'content-type': 'application/json' }, body: JSON.stringify({ force: true }) });

it('ends an ingest NDJSON stream cut by shutdown with an error line saying the service is stopping', async () => {
  const { backend, catalog, baseUrl } = await backendWithoutWorker();
  const worker: ChildProcess = await startWorkerProcess(backend, catalog);
  cleanups.push(() => void process.kill(-worker.pid!, 'SIGKILL'));
  const lines = ndjsonLines(await ingest(baseUrl, 'application/x-ndjson'));
  const seen = [(await lines.next()).value!];
  expect(seen[0]).toMatchObject({ event: 'start' });
  // The scan holds still (its worker stopped), so the stream is open when the server closes.
  process.kill(-worker.pid!, 'SIGSTOP');

  await backend.app.close();
  for await (const line of lines) seen.push(line);
  expect(seen.at(-1)).toEqual({ event: 'error', message: STOPPING });
  expect(seen.filter((line) => line.event === 'error')).toHaveLength(1);
}, 60_000);

it('answers 503 in the envelope to an ingest still waiting for its scan when the server closes', async () => {
  const { backend, baseUrl } = await backendWithoutWorker();
  // No worker anywhere: the scan stays queued and the request waits for its first line.
  const queue = new Queue(BACKGROUND_QUEUES.ingest, { connection: bullConnection(backend.config.redisUrl), prefix: backend.config.redisPrefix });
  cleanups.push(() => queue.close());
  const answers = [ingest(baseUrl, 'application/json'), ingest(baseUrl, 'application/x-ndjson')];
  await until(async () => (await queue.getWaitingCount()) === 2, 10_000, 'both scans to be queued');

  await backend.app.close();
  for (const answer of await Promise.all(answers)) {
    expect(answer.status).toBe(503);
    // Sent after the close began: a connection left open would hold the close until its keep-alive timeout.
    expect(answer.headers.get('connection')).toBe('close');
    expect(await answer.json()).toEqual({ error: { code: 'queue_unavailable', message: STOPPING } });
  }
});
