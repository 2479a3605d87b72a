import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/db/dialect.js';
import { jobStateCounts } from '../../src/db/job-state-counts.js';
import { jobsTable, type NewJobRow } from '../../src/db/jobs-table.js';
import { BACKEND_MIGRATIONS, openDatabase, type Database } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';

const row = (id: string, origin: string | null = null): NewJobRow => ({
  id, accountId: 'a', origin, testCaseSlug: 'carom', testCaseVersion: 'v1.1.0', variant: 'base', harnessSlug: 'codex', modelId: 'm',
  provider: null, engine: null, testType: 'end-to-end', ggConfigId: null, ggPreset: null, request: '{}', enqueuedAt: '2026-11-26T10:00:00.000Z',
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'evb-in-flight-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('jobs in flight', () => {
  it('follows every write: a claim keeps a job in flight, a terminal state ends it for good', async () => {
    const db = openDatabase(join(dir, 'db.sqlite'));
    const store = sqliteStore<StoreSchema>(db);
    const jobs = jobsTable(store);
    const [, claimed, finished] = await jobs.insert([row('queued'), row('claimed'), row('finished')]);
    const inFlight = async () => (await jobs.inFlight()).map((job) => `${job.id}:${job.state}`);
    const at = '2026-11-26T10:01:00.000Z';

    await jobs.markAllDispatched([{ seq: claimed!, tokenHash: 'h', at }]);
    await jobs.markFinished('finished', 'failed', 'lost', null, at);
    expect(await inFlight()).toEqual(['queued:queued', 'claimed:dispatched']);
    // A claim written late onto a row that already ended leaves it ended.
    await jobs.markAllDispatched([{ seq: finished!, tokenHash: 'h', at }]);
    expect(await inFlight()).toEqual(['queued:queued', 'claimed:dispatched']);

    // A late copy (from another process, or retried) never brings an ended row back.
    await jobs.markStarted('finished', 'running', at);
    expect(await inFlight()).toEqual(['queued:queued', 'claimed:dispatched']);
    expect((await jobs.get('finished'))!.finishedAt).toBe(at);
    await jobs.markAllFinished(['claimed'], 'canceled', null, at);
    await jobs.markWaiting(['claimed'], 'queued');
    expect(await inFlight()).toEqual(['queued:queued']);
    expect(await jobStateCounts(store)()).toEqual([{ harness: 'codex', state: 'queued', jobs: 1 }]);
    db.close();
  });

  it('mends rows written before the in-flight indexes keyed on finished_at', async () => {
    const older = join(dir, 'migrations');
    mkdirSync(older);
    for (const name of readdirSync(BACKEND_MIGRATIONS).filter((file) => file < '0080')) copyFileSync(join(BACKEND_MIGRATIONS, name), join(older, name));
    const file = join(dir, 'old.sqlite');
    const before: Database = openDatabase(file, older);
    // Written as that build wrote them: today's jobsTable knows columns the older store lacks.
    const insert = before.prepare(`INSERT INTO jobs (id, account_id, origin, test_case_slug, test_case_version, variant, harness_slug, model_id,
      provider, engine, test_type, gg_config_id, gg_preset, request, state, enqueued_at)
      VALUES (@id, @accountId, @origin, @testCaseSlug, @testCaseVersion, @variant, @harnessSlug, @modelId,
      @provider, @engine, @testType, @ggConfigId, @ggPreset, @request, 'queued', @enqueuedAt)`);
    for (const id of ['running-but-ended', 'ended-without-time', 'plain']) insert.run(row(id));
    before.prepare(`UPDATE jobs SET state = 'running', started_at = 's', finished_at = 'f' WHERE id = 'running-but-ended'`).run();
    before.prepare(`UPDATE jobs SET state = 'failed', started_at = 's', finished_at = NULL WHERE id = 'ended-without-time'`).run();
    before.close();

    const after = openDatabase(file);
    const rows = after.prepare('SELECT id, state, finished_at AS finishedAt FROM jobs ORDER BY seq').all();
    expect(rows).toEqual([
      { id: 'running-but-ended', state: 'running', finishedAt: null },
      { id: 'ended-without-time', state: 'failed', finishedAt: 's' },
      { id: 'plain', state: 'queued', finishedAt: null },
    ]);
    expect((await jobsTable(sqliteStore<StoreSchema>(after)).inFlight()).map((job) => job.id)).toEqual(['running-but-ended', 'plain']);
    after.close();
  });
});
