import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { jobsTable } from '../../src/db/jobs-table.js';
import { copyFinishedStates } from '../../src/jobs/job-state-copier.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { databaseOutage } from '../helpers/postgres.js';
import { startTestBackend, TEST_ENGINE, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

/**
 * Issue 39 item 1: Redis decides every job transition and the store's row is a copy. A copy
 * the store refuses must neither fail the caller (whose retry finds nothing left to do in
 * Redis) nor be lost: it is retried until written, and Redis keeps a finished job's state
 * until its copy is.
 */
const SERVICE = 'copier-dispatch';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let operator: string;
let redis: Redis;
/** Another process's queue on the same Redis: what it decides, it never copies (it died). */
let ghost: RunQueue;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: [launch.model] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  operator = (await backend.auth.register('operator')).token;
  redis = new Redis(inject('redisUrl'));
  ghost = new RunQueue({ redis, prefix: backend.config.redisPrefix });
});
afterAll(async () => {
  await ghost?.close();
  redis?.disconnect();
  await backend?.close();
});

const enqueue = async (count: number) => {
  const { body } = await http.post('/jobs/batch', operator, { runs: Array.from({ length: count }, () => launch) });
  return (body.jobs as Array<{ jobId: string }>).map((job) => job.jobId);
};
const claim = async () => (await http.post('/jobs/next', SERVICE)).body as { jobId: string; jobToken: string };
const rowStates = async (ids: string[]) => {
  const rows = await backend.store.db.selectFrom('jobs').select(['id', 'state']).where('id', 'in', ids).execute();
  return Object.fromEntries(rows.map((row) => [row.id, row.state]));
};
const listedUncopied = async (ids: string[]) => (await Promise.all(ids.map((id) => redis.zscore(ghost.keys.uncopied, id)))).filter((score) => score !== null).length;

describe('the job-state copier', () => {
  it('copies the outcomes a process decided in Redis and died before copying, and lets their states expire only then', async () => {
    const ids = await enqueue(3);
    // Decided in Redis, never copied: the process that canceled them is gone.
    const result = await ghost.cancel('any', 'Canceled by a process that died.', { ids });
    expect(result.canceled.map((job) => job.id)).toEqual(ids);
    expect(await rowStates(ids)).toEqual(Object.fromEntries(ids.map((id) => [id, 'queued'])));
    // Kept, however long the copy takes: the finished state's expiry waits for it.
    expect(await listedUncopied(ids)).toBe(3);
    for (const id of ids) expect(await redis.ttl(ghost.keys.run(id))).toBe(-1);

    // The stale-job sweep's pass; 0: take even those that finished just now.
    expect(await copyFinishedStates(jobsTable(backend.store), ghost, 0)).toBeGreaterThanOrEqual(3);
    expect(await rowStates(ids)).toEqual(Object.fromEntries(ids.map((id) => [id, 'canceled'])));
    expect(await listedUncopied(ids)).toBe(0);
    for (const id of ids) expect(await redis.ttl(ghost.keys.run(id))).toBeGreaterThan(0);
    const row = await jobsTable(backend.store).get(ids[0]!);
    expect(row).toMatchObject({ state: 'canceled', detail: 'Canceled by a process that died.' });
    expect(row!.finishedAt).not.toBeNull();
  });

  it('confirms what it copied itself, so a state expires once its row holds it', async () => {
    const [id] = await enqueue(1);
    expect((await http.post(`/jobs/${id}/cancel`, operator)).status).toBe(200);
    expect(await rowStates([id!])).toEqual({ [id!]: 'canceled' });
    await until(async () => (await listedUncopied([id!])) === 0, 5000, 'the copy confirmed to Redis');
    expect(await redis.ttl(ghost.keys.run(id!))).toBeGreaterThan(0);
  });

  // Needs a network database to take away; on SQLite the same writes go to the local file.
  it.runIf(TEST_ENGINE === 'postgres')('answers a cancel sweep and a driver report while PostgreSQL refuses connections, and copies both once it is back', async () => {
    const ids = await enqueue(4);
    const a = await claim();
    const b = await claim();
    expect([a.jobId, b.jobId]).toEqual(ids.slice(0, 2));
    expect((await http.post(`/jobs/${b.jobId}/status`, b.jobToken, { state: 'running' })).status).toBe(204);

    const down = await databaseOutage(backend.config.databaseUrl!);
    try {
      // Redis decides both; their copies wait for the store rather than fail the callers.
      expect((await http.post(`/jobs/${a.jobId}/status`, a.jobToken, { state: 'running' })).status).toBe(204);
      const sweep = await http.post('/jobs/cancel-all', operator);
      expect(sweep.status).toBe(200);
      expect(sweep.body).toEqual({ canceled: 4, includedWaiting: true, includedActive: true });
      expect(backend.app.runJobs.copier.waiting()).toBeGreaterThanOrEqual(4);
      // A read of the store answers its outage, fast.
      const read = await http.get(`/jobs/${a.jobId}`);
      expect(read.status, JSON.stringify(read.body)).toBe(503);
      expect(await listedUncopied(ids)).toBe(4);
    } finally {
      await down.heal();
    }
    // The retry (at most 5 s apart) writes each job's newest state: canceled, never running.
    await until(async () => Object.values(await rowStates(ids)).every((state) => state === 'canceled'), 15_000, 'the rows canceled after the outage');
    await until(async () => (await listedUncopied(ids)) === 0, 5000, 'the copies confirmed to Redis');
    expect(backend.app.runJobs.copier.waiting()).toBe(0);
    expect((await http.get('/jobs/active')).body.jobs).toEqual([]);
    expect((await http.get(`/jobs/${a.jobId}`)).body).toMatchObject({ state: 'canceled', detail: 'Canceled by operator (cancel-all).' });
  }, 60_000);

  it.runIf(TEST_ENGINE === 'postgres')('answers without waiting out a write the store holds up, and writes the copy once it can', async () => {
    const [id] = await enqueue(1);
    const locker = new pg.Client({ connectionString: backend.config.databaseUrl! });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [id]);
      const answer = await http.post(`/jobs/${id}/cancel`, operator);
      expect(answer.status).toBe(200);
      // Answered while the row's write still waits for the lock: the copy waits in memory.
      expect(backend.app.runJobs.copier.waiting()).toBe(1);
      expect(await rowStates([id!])).toEqual({ [id!]: 'queued' });
      await locker.query('ROLLBACK');
    } finally {
      await locker.end();
    }
    await until(async () => (await rowStates([id!]))[id!] === 'canceled', 15_000, 'the held-up copy written');
    await until(() => backend.app.runJobs.copier.waiting() === 0, 15_000, 'nothing left waiting');
  }, 60_000);
});
