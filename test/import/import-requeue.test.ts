import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { IN_FLIGHT_DETAIL } from '../../src/import/map-jobs.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { stopTestPostgres } from '../helpers/postgres.js';
import { startTestBackend } from '../helpers/test-backend.js';
import { buildOriginalAuth } from './fixtures/original-auth.js';
import { ACCOUNT, buildOriginalStore, JOBS } from './fixtures/original-store.js';
import { importCli, importTarget, tableOf } from './import-cli.js';

afterAll(async () => {
  await stopTestPostgres();
});

const SERVICE = 'requeue-dispatcher';
const LAUNCH = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-x' };

/** A waiting job of the original's, its request a launch body of ours. */
function addWaitingJob(source: string, id: string, request: object, userId: string) {
  const db = new BetterSqlite3(source);
  try {
    db.prepare(
      `INSERT INTO job (id, state, request_json, test_case_slug, test_case_version, variant, harness_slug, model_id, record_id, detail, created_at, updated_at, user_id, origin)
       VALUES (?, 'pending', ?, 'carom', 'v1.1.0', 'base', 'codex', 'openai/gpt-x', NULL, NULL, '2026-10-01T09:59:00Z', '2026-10-01T10:10:00Z', ?, 'manual')`,
    ).run(id, JSON.stringify(request), userId);
  } finally {
    db.close();
  }
}

describe('import-original --requeue-waiting', () => {
  it('is refused without --auth-from, before anything is read', async () => {
    const target = await importTarget();
    const refused = await importCli(target.env, ['--from', join(target.dataDir, 'missing.sqlite'), '--requeue-waiting']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--requeue-waiting needs --auth-from');
  });

  it('writes waiting jobs that pass our launch rules queued, for the next start to queue; the rest canceled with the check named', async () => {
    const target = await importTarget();
    // The catalog ingested here first: a job is queued again only for a version we hold.
    const seeding = await startTestBackend(target.env);
    await seedCatalog(seeding.store, target.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
    await seeding.close();

    const source = join(target.dataDir, 'tcab-backend.sqlite');
    const authSource = join(target.dataDir, 'tcab-auth.sqlite');
    await buildOriginalStore('sqlite', source, 53);
    await buildOriginalAuth(authSource);
    addWaitingJob(source, 'job-again', LAUNCH, ACCOUNT.id);
    addWaitingJob(source, 'job-no-version', { ...LAUNCH, version: 'v9.9.9' }, ACCOUNT.id);
    addWaitingJob(source, 'job-stranger', LAUNCH, 'ck0not-an-account');

    const run = await importCli(target.env, ['--from', source, '--auth-from', authSource, '--accept-unreadable', '--merge', '--requeue-waiting']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const jobs = tableOf(run.report!, 'job');
    expect(jobs).toMatchObject({ read: 6, imported: 6, balanced: true });
    const notes = jobs.notes.join('\n');
    expect(notes).toContain('job job-again: pending in the original, queued again here (--requeue-waiting)');
    expect(notes).toContain('job job-no-version: pending in the original, imported canceled, not queued again: Test case carom has no ingested version v9.9.9.');
    expect(notes).toContain('job job-stranger: pending in the original, imported canceled, not queued again: its account ck0not-an-account is not in the auth database imported');
    // The original's own request is the console's older shape, not a launch body of ours.
    expect(notes).toMatch(new RegExp(`job ${JOBS.queued}: queued in the original, imported canceled, not queued again: request`));

    // Run again before the service starts: nothing is written, the same digests come out.
    const again = await importCli(target.env, ['--from', source, '--auth-from', authSource, '--accept-unreadable', '--merge', '--requeue-waiting']);
    expect(tableOf(again.report!, 'job')).toMatchObject({ written: 0, refused: [], mappedDigest: jobs.mappedDigest });

    const backend = await startTestBackend({ ...target.env, SERVICE_TOKEN: SERVICE });
    try {
      const rows = await backend.store.db.selectFrom('jobs').select(['id', 'state', 'detail', 'finished_at']).where('id', 'in', ['job-again', 'job-no-version', JOBS.queued]).execute();
      expect(new Map(rows.map((row) => [row.id, row]))).toEqual(new Map([
        [JOBS.queued, { id: JOBS.queued, state: 'canceled', detail: IN_FLIGHT_DETAIL, finished_at: expect.any(String) }],
        ['job-again', { id: 'job-again', state: 'queued', detail: null, finished_at: null }],
        ['job-no-version', { id: 'job-no-version', state: 'canceled', detail: IN_FLIGHT_DETAIL, finished_at: expect.any(String) }],
      ]));
      // The start queued it: a dispatcher claims it with the original's request.
      const http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
      const claim = await http.post('/jobs/next', SERVICE);
      expect(claim.status).toBe(200);
      expect(claim.body).toMatchObject({ jobId: 'job-again', request: LAUNCH });
      expect((await http.post('/jobs/next', SERVICE)).status).toBe(204);
    } finally {
      await backend.close();
    }

    // Once the service has moved the job on, it is ours: a rerun reports it and never overwrites it.
    const later = await importCli(target.env, ['--from', source, '--auth-from', authSource, '--accept-unreadable', '--merge', '--requeue-waiting']);
    expect(later.code).toBe(0);
    expect(tableOf(later.report!, 'job')).toMatchObject({ written: 0, refused: [{ reason: expect.stringContaining('conflict'), ids: ['job-again'] }] });
  }, 120_000);
});
