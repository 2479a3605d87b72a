import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open-database.js';
import { rfc3339ToUtc } from '../../src/runs/rfc3339.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const MODEL = 'openai/gpt-5';
const DAY = 24 * 3600 * 1000;

let backend: TestBackend;
beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, RUN_WORKERS: 'false' }, { pricedModels: [MODEL] });
});
afterAll(() => backend.close());

describe('RFC 3339 driver times', () => {
  it('normalizes every RFC 3339 spelling to the UTC instant and refuses what is not one', () => {
    expect(rfc3339ToUtc('2025-03-03T12:30:00+02:00')).toBe('2025-03-03T10:30:00.000Z');
    expect(rfc3339ToUtc('2025-03-03t10:30:00.250z')).toBe('2025-03-03T10:30:00.250Z');
    expect(rfc3339ToUtc('2025-03-03 10:30:00.123456-00:30')).toBe('2025-03-03T11:00:00.123Z');
    for (const bad of ['2025-03-03', '2025-03-03T10:30:00', '2025-02-30T00:00:00Z', '2025-13-01T00:00:00Z', '2025-03-03T24:00:00Z', '2025-03-03T10:30:00+24:00', 'yesterday']) {
      expect(rfc3339ToUtc(bad), bad).toBeNull();
    }
  });

  it('refuses a status report whose record carries a time that is not RFC 3339 with 422 naming the field', async () => {
    await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
    const base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
    const http = jobsHttp(base);
    const operator = (await backend.auth.register('operator')).token;
    await http.post('/jobs', operator, { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL });
    const job = (await http.post('/jobs/next', SERVICE)).body;
    const record = { ...runRecord({ id: 'badly-timed', slug: 'carom', harness: 'codex', model: MODEL }), finishedAt: '03/03/2025 12:00' };
    const refused = await http.post(`/jobs/${job.jobId}/status`, job.jobToken, { state: 'succeeded', record });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toContain('record.finishedAt "03/03/2025 12:00"');
    expect((await http.get('/runs/badly-timed')).status).toBe(404);
  });

  it('orders listings by the instant, not the text, and keeps the record as sent', async () => {
    // 12:30+02:00 is 10:30Z: earlier than 11:00Z although it sorts after it as text.
    await seedRun(backend, runRecord({ id: 'offset-run', startedAt: '2025-03-03T12:00:00+02:00', finishedAt: '2025-03-03T12:30:00+02:00' }));
    await seedRun(backend, runRecord({ id: 'utc-run', startedAt: '2025-03-03T10:45:00Z', finishedAt: '2025-03-03T11:00:00Z' }));
    const page = (await backend.app.inject('/runs?fields=summary&state=any&offset=0&limit=200')).json().runs.map((run: { id: string }) => run.id);
    expect(page.indexOf('utc-run')).toBeLessThan(page.indexOf('offset-run'));
    const detail = (await backend.app.inject('/runs/offset-run')).json();
    expect(detail.record.finishedAt).toBe('2025-03-03T12:30:00+02:00');
  });

  it('counts a run in the UTC week of its finish instant, at the edge of the statistics window too', async () => {
    const weekly = async (): Promise<Array<{ weekStart: string; runs: number }>> => (await backend.app.inject('/stats/cabinet')).json().weekly;
    const first = (await weekly())[0]!.weekStart;
    // Sunday 23:00 at -03:00 is 02:00Z on the window's first Monday, though its text sorts before that day.
    const sunday = new Date(Date.parse(`${first}T00:00:00Z`) - DAY).toISOString().slice(0, 10);
    await seedRun(backend, runRecord({ id: 'edge-run', startedAt: `${sunday}T22:00:00-03:00`, finishedAt: `${sunday}T23:00:00-03:00` }));
    expect((await weekly())[0]).toEqual({ weekStart: first, runs: 1 });
  });

  it('converts the times of runs stored before the normalization, leaving the records as sent', () => {
    const file = join(backend.dataDir, 'migrated.sqlite');
    const db = openDatabase(file);
    db.prepare(`INSERT INTO runs (id, job_id, record, record_format, events, state, started_at, finished_at, test_case_slug, test_case_version,
        version_rank, variant, harness, model_id, engine, summary, validator_verdicts, created_at, updated_at)
      VALUES ('old', 'job-old', '{"finishedAt":"2025-03-03T12:30:00+02:00"}', 1, '[]', 'completed', '2025-03-03T12:00:00+02:00',
        '2025-03-03T12:30:00+02:00', 'carom', 'v1.1.0', 1000001, 'base', 'codex', 'm', 'none',
        '{"id":"old","startedAt":"2025-03-03T12:00:00+02:00","finishedAt":"2025-03-03T12:30:00+02:00"}', '{}', 'x', 'x')`).run();
    // As if the database had been written by the build before the migration.
    db.prepare('DELETE FROM schema_migrations WHERE name = ?').run('0071_run_times_utc.sql');
    db.close();
    const reopened = openDatabase(file);
    const row = reopened.prepare<[], { started_at: string; finished_at: string; summary: string; record: string }>(
      "SELECT started_at, finished_at, summary, record FROM runs WHERE id = 'old'",
    ).get()!;
    reopened.close();
    expect([row.started_at, row.finished_at]).toEqual(['2025-03-03T10:00:00.000Z', '2025-03-03T10:30:00.000Z']);
    expect(JSON.parse(row.summary)).toMatchObject({ startedAt: '2025-03-03T10:00:00.000Z', finishedAt: '2025-03-03T10:30:00.000Z' });
    expect(JSON.parse(row.record).finishedAt).toBe('2025-03-03T12:30:00+02:00');
  });
});
