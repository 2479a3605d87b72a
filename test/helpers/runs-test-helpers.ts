import { Queue } from 'bullmq';
import { bullConnection } from '../../src/redis/managed-redis.js';
import { SNAPSHOT_QUEUE } from '../../src/snapshot/snapshot-queue.js';
import type { TestBackend } from './test-backend.js';
import { bearer } from './test-backend.js';

/** Stores a record through the service (as the run-job queue's sink does) and waits for its grade. */
export async function seedRun(backend: TestBackend, record: Record<string, unknown>, events: string[] = []) {
  const stored = await backend.app.runs.records.store(`job-${String(record.id)}`, record, events);
  await stored.graded;
  return stored;
}

/**
 * Ingests the catalog the backend was started on (the example catalog in these tests), or
 * only the named cases of it, so a file renders no more mockups than it needs.
 */
export async function ingestCatalog(backend: TestBackend, testCases?: string[]) {
  const response = await backend.app.inject({ method: 'POST', url: '/ingest', ...(testCases ? { payload: { testCases } } : {}) });
  if (response.statusCode !== 200 || response.json().failed !== 0) throw new Error(`catalog ingest failed: ${response.body}`);
}

/** Publishes over HTTP and waits until the publisher has flipped the run public. */
export async function publishAndWait(backend: TestBackend, token: string, id: string) {
  const response = await backend.app.inject({ method: 'POST', url: `/runs/${id}/publish`, headers: bearer(token) });
  if (response.statusCode !== 202) throw new Error(`publish ${id}: ${response.statusCode} ${response.body}`);
  for (let i = 0; i < 200; i++) {
    if ((await backend.app.inject(`/runs/${id}`)).json().published === true) return response.json() as { publishJobId: string; liveUrl: string };
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`run ${id} was not published in time`);
}

/** All `verdict ids` of an engine-format checklist passing, as a validator pass over a good build reports. */
export function allPass(ids: string[]): Record<string, boolean> {
  return Object.fromEntries(ids.map((id) => [id, true]));
}

/**
 * Waits (bounded) until no snapshot refresh is queued or running: a publish queues one, and
 * a test that then changes the snapshot folder itself must not race its rewrite.
 */
export async function waitForSnapshotQueueIdle(backend: TestBackend) {
  const queue = new Queue(SNAPSHOT_QUEUE, { connection: bullConnection(backend.config.redisUrl), prefix: backend.config.redisPrefix });
  try {
    for (let i = 0; i < 400; i++) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (Object.values(counts).every((count) => count === 0)) return;
      await new Promise((done) => setTimeout(done, 25));
    }
    throw new Error('the snapshot queue did not drain in time');
  } finally {
    await queue.close();
  }
}
