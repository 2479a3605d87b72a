import { readFileSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotProcessor } from '../../src/snapshot/snapshot-processor.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;

beforeAll(async () => {
  backend = await startTestBackend({ RUN_WORKERS: 'false' });
  await seedRun(backend, runRecord({ id: 'shown' }));
  backend.db.prepare("UPDATE runs SET published = 1, published_at = ? WHERE id = 'shown'").run(new Date().toISOString());
});
afterAll(() => backend.close());

describe('snapshot regeneration', () => {
  it('survives a forced refresh racing the queued one: every write succeeds and one whole snapshot stays', async () => {
    // The queue's processor keeps its own writer, as it does in a worker process.
    const queued = snapshotProcessor.start({ config: backend.config, db: backend.db } as Parameters<typeof snapshotProcessor.start>[0]);
    const writes = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? backend.app.runs.snapshot.refresh() : queued.processor({} as never)));
    const results = await Promise.allSettled(writes);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    await queued.close?.();
    const index = JSON.parse(readFileSync(`${backend.config.snapshotDir}/runs.json`, 'utf8'));
    expect(index.runs.map((run: { id: string }) => run.id)).toEqual(['shown']);
    // No temp or set-aside folder is left beside it.
    expect(readdirSync(dirname(backend.config.snapshotDir)).filter((name) => name.startsWith('snapshot.'))).toEqual([]);
  });
});
