import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { buildApp } from '../../src/api/app.js';
import type { RunJobsOptions } from '../../src/api/plugins/run-jobs.js';
import { sha256Hex } from '../../src/jobs/jobs-context.js';
import { mintJobToken } from '../../src/jobs/mint-job-token.js';
import { REAPED, reconcileJobs } from '../../src/jobs/reconcile-jobs.js';
import { scheduleLockKey } from '../../src/queue/queue-keys.js';
import { startManagedRedis } from '../../src/redis/managed-redis.js';
import { openConsole, seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { openLive } from '../helpers/ndjson-client.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, TEST_ENGINE, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

const SERVICE = 'dispatch-secret';
const MODEL = 'openai/gpt-5';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL };
const jobsOptions = { heartbeatMs: 150 };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(env: Record<string, string> = {}, jobs: RunJobsOptions = {}) {
  const backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, ...env }, { jobs: { ...jobsOptions, ...jobs }, pricedModels: [MODEL] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  cleanups.push(() => backend.close());
  const base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  return { backend, base, http: jobsHttp(base), operator: (await backend.auth.register(`op${cleanups.length}`)).token };
}

/** The app again on the same store and Redis prefix, as after a restart of the service. */
async function restart(backend: TestBackend, overrides: { reapOrphanedJobs?: boolean } = {}, onBootProgress?: (what: string) => void) {
  await backend.app.close();
  const app = await buildApp({ config: { ...backend.config, ...overrides }, db: backend.app.sqlite, store: backend.store, jobs: { ...jobsOptions, onBootProgress } });
  cleanups.push(() => app.close());
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base, http: jobsHttp(base) };
}

describe('GET /jobs/{id}/live', () => {
  it('replays what the driver relayed, follows live with heartbeats, and closes after the terminal state', async () => {
    const { http, base, operator } = await start();
    const { jobId } = (await http.post('/jobs', operator, launch)).body;
    const { jobToken } = (await http.post('/jobs/next', SERVICE)).body;
    await http.post(`/jobs/${jobId}/events`, jobToken, [{ n: 1 }, { n: 2 }]);

    const live = await openLive(`${base}/jobs/${jobId}/live`);
    expect(live.response.headers.get('content-type')).toContain('application/x-ndjson');
    await live.until(() => live.lines.length >= 2);
    expect(live.lines.slice(0, 2).map((line) => JSON.parse(line))).toEqual([{ n: 1 }, { n: 2 }]);
    await http.post(`/jobs/${jobId}/events`, jobToken, [{ n: 3 }]);
    await live.until(() => live.lines.includes('{"n":3}'));
    await live.until(() => live.lines.includes(''), 2000);
    expect(live.ended).toBe(false);
    await http.post(`/jobs/${jobId}/status`, jobToken, { state: 'succeeded', record: { id: 'r-live' } });
    await live.done;
    expect(live.lines.filter((line) => line !== '').map((line) => JSON.parse(line))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);

    const late = await openLive(`${base}/jobs/${jobId}/live`);
    await late.done;
    expect(late.lines).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    expect((await http.get('/jobs/00000000-0000-4000-8000-000000000000/live')).status).toBe(404);
  });
});

describe('restarts', () => {
  it('on a single box (REAP_ORPHANED_JOBS) reaps in-flight jobs at boot, keeps queued ones, and the live backlog survives', async () => {
    const { backend, http, operator } = await start();
    const [first, second] = (await http.post('/jobs/batch', operator, { runs: [launch, launch] })).body.jobs.map((j: { jobId: string }) => j.jobId);
    const { jobToken } = (await http.post('/jobs/next', SERVICE)).body;
    await http.post(`/jobs/${first}/status`, jobToken, { state: 'running' });
    await http.post(`/jobs/${first}/events`, jobToken, [{ step: 'before restart' }]);

    const again = await restart(backend, { reapOrphanedJobs: true });
    expect((await again.http.get(`/jobs/${first}`)).body).toEqual({ id: first, state: 'failed', recordId: null, detail: REAPED });
    expect((await again.http.post('/jobs/next', SERVICE)).body.jobId).toBe(second);
    const live = await openLive(`${again.base}/jobs/${first}/live`);
    await live.done;
    expect(live.lines).toEqual(['{"step":"before restart"}']);
  });

  it('reaps many in-flight jobs oldest claim first, reporting each thousand to the supervisor', async () => {
    const { backend, http, operator } = await start();
    for (let i = 0; i < 2; i++) await http.post('/jobs/batch', operator, { runs: Array.from({ length: 500 }, () => launch) });
    const claimed: string[] = [];
    for (let i = 0; i < 1000; i++) claimed.push((await backend.app.runJobs.queue.claim(`hash-${i}`)).claimed!.id);
    expect(await backend.app.runJobs.queue.activeIds()).toEqual(claimed);
    const progress: string[] = [];
    const again = await restart(backend, { reapOrphanedJobs: true }, (what) => progress.push(what));
    expect(progress).toContain('failed 1000 of 1000 jobs a previous process left in flight');
    expect(await again.app.runJobs.queue.activeIds()).toEqual([]);
    const failed = await backend.store.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', 'failed').where('detail', '=', REAPED).executeTakeFirstOrThrow();
    expect(failed.n).toBe(1000);
  });

  it('by default keeps a running driver\'s job across a restart and stores its final record', async () => {
    const { backend, http, operator } = await start();
    const { jobId } = (await http.post('/jobs', operator, launch)).body;
    const { jobToken } = (await http.post('/jobs/next', SERVICE)).body;
    expect((await http.post(`/jobs/${jobId}/status`, jobToken, { state: 'running' })).status).toBe(204);
    // The driver runs outside the API: it outlives the restart and goes on reporting.
    const again = await restart(backend);
    expect((await again.http.get(`/jobs/${jobId}`)).body.state).toBe('running');
    expect((await again.http.post(`/jobs/${jobId}/events`, jobToken, [{ step: 'after restart' }])).status).toBe(204);
    const record = runRecord();
    expect((await again.http.post(`/jobs/${jobId}/status`, jobToken, { state: 'succeeded', record })).status).toBe(204);
    expect((await again.http.get(`/jobs/${jobId}`)).body).toEqual({ id: jobId, state: 'succeeded', recordId: record.id, detail: null });
    const stored = await backend.store.db.selectFrom('runs').select(['job_id as jobId', 'events']).where('id', '=', String(record.id)).executeTakeFirst();
    expect(stored).toEqual({ jobId, events: JSON.stringify([{ step: 'after restart' }]) });
  });

  it('keeps in-flight jobs with several API processes (reaping off) and takes their reports', async () => {
    const { backend, http, operator } = await start();
    const { jobId } = (await http.post('/jobs', operator, launch)).body;
    const { jobToken } = (await http.post('/jobs/next', SERVICE)).body;
    await http.post(`/jobs/${jobId}/status`, jobToken, { state: 'running' });
    const again = await restart(backend, { reapOrphanedJobs: false });
    expect((await again.http.get(`/jobs/${jobId}`)).body.state).toBe('running');
    expect((await again.http.post(`/jobs/${jobId}/status`, jobToken, { state: 'failed', detail: 'x' })).status).toBe(204);
  });

  it('hears a driver whose claim is in Redis before its row is written (a claim made by another process)', async () => {
    const { backend, http, operator } = await start();
    const { jobId } = (await http.post('/jobs', operator, launch)).body;
    const jobToken = mintJobToken();
    expect((await backend.app.runJobs.queue.claim(sha256Hex(jobToken))).claimed!.id).toBe(jobId);
    expect((await backend.app.runJobs.jobs.get(jobId))!.tokenHash).toBeNull();
    expect((await http.post(`/jobs/${jobId}/status`, 'not-the-job-token', { state: 'starting' })).status).toBe(401);
    expect((await http.post(`/jobs/${jobId}/status`, jobToken, { state: 'starting' })).status).toBe(204);
    expect((await http.get(`/jobs/${jobId}`)).body.state).toBe('starting');
  });

  it("checks a driver's token against Redis first: a report needs no store read while Redis holds the claim", async () => {
    const { backend, http, operator } = await start();
    const { jobId } = (await http.post('/jobs', operator, launch)).body;
    const { jobToken } = (await http.post('/jobs/next', SERVICE)).body;
    await until(async () => (await backend.app.runJobs.jobs.get(jobId))!.tokenHash !== null, 5000, "the claim's row");
    // The row says another token: only a check that never reads the store accepts the report.
    await backend.store.db.updateTable('jobs').set({ token_hash: sha256Hex('another token') }).where('id', '=', jobId).execute();
    expect((await http.post(`/jobs/${jobId}/status`, jobToken, { state: 'starting' })).status).toBe(204);
    expect((await http.post(`/jobs/${jobId}/status`, 'another token', { state: 'running' })).status).toBe(401);
  });

  it("falls back to the store for a driver's token when Redis has none for the job", async () => {
    const { backend, http, operator } = await start();
    const { jobId } = (await http.post('/jobs', operator, launch)).body;
    const { jobToken } = (await http.post('/jobs/next', SERVICE)).body;
    await until(async () => (await backend.app.runJobs.jobs.get(jobId))!.tokenHash !== null, 5000, "the claim's row");
    await backend.app.jobsRedis.hdel(backend.app.runJobs.queue.keys.run(jobId), 'token');
    expect((await http.post(`/jobs/${jobId}/status`, 'not-the-job-token', { state: 'starting' })).status).toBe(401);
    expect((await http.post(`/jobs/${jobId}/status`, jobToken, { state: 'starting' })).status).toBe(204);
    expect((await http.post('/jobs/no-such-job/status', jobToken, { state: 'starting' })).status).toBe(404);
  });

  it('copies at boot a claim the process died before writing, token included', async () => {
    const { backend, http, operator } = await start();
    const { jobId } = (await http.post('/jobs', operator, launch)).body;
    // The claim script ran; the process died before the claim's row was written.
    const jobToken = mintJobToken();
    await backend.app.runJobs.queue.claim(sha256Hex(jobToken));
    const again = await restart(backend, { reapOrphanedJobs: false });
    expect(await again.app.runJobs.jobs.get(jobId)).toMatchObject({ state: 'dispatched', tokenHash: sha256Hex(jobToken) });
    expect((await again.app.runJobs.jobs.get(jobId))!.dispatchedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await again.http.post(`/jobs/${jobId}/status`, jobToken, { state: 'running' })).status).toBe(204);
  });

  it('reconciles SQLite with Redis at boot: Redis decides, and lost waiting jobs are queued again', async () => {
    const { backend, http, operator } = await start();
    const [lost, behind] = (await http.post('/jobs/batch', operator, { runs: [launch, launch] })).body.jobs.map((j: { jobId: string }) => j.jobId);
    // Redis loses one queued job entirely (no append-only file), and SQLite misses a transition.
    const queue = backend.app.runJobs.queue;
    const redis = backend.app.jobsRedis;
    await redis.lrem(queue.keys.wait, 0, lost);
    await redis.del(queue.keys.run(lost), queue.keys.bullJobPrefix + lost);
    await redis.hset(queue.keys.run(behind), 'state', 'canceled', 'detail', 'canceled elsewhere');
    await redis.lrem(queue.keys.wait, 0, behind);

    // Alone on its Redis (single box), the boot queues the lost job again whatever its age.
    const again = await restart(backend, { reapOrphanedJobs: true });
    expect((await again.http.get(`/jobs/${behind}`)).body).toMatchObject({ state: 'canceled', detail: 'canceled elsewhere' });
    expect((await again.http.get(`/jobs/${lost}`)).body.state).toBe('queued');
    expect((await again.http.post('/jobs/next', SERVICE)).body.jobId).toBe(lost);
  });

  it('reports how far the boot reconcile got, page by page, for the supervisor', async () => {
    const { backend, http, operator } = await start();
    await http.post('/jobs/batch', operator, { runs: [launch, launch, launch] });
    const progress: string[] = [];
    await restart(backend, {}, (what) => progress.push(what));
    expect(progress).toEqual(['reconciled 3 in-flight jobs with Redis']);
  });

  it('reports a boot that waits for another process to finish reconciling, then reconciles', async () => {
    const { backend, http, operator } = await start();
    await http.post('/jobs/batch', operator, { runs: [launch, launch] });
    // Another process on this Redis holds the reconcile for a while yet.
    await backend.app.jobsRedis.set(scheduleLockKey(backend.config.redisPrefix, 'reconcile-jobs'), 'elsewhere', 'PX', 1500);
    const progress: string[] = [];
    await restart(backend, {}, (what) => progress.push(what));
    expect(progress[0]).toBe('waiting for another process to finish reconciling jobs with Redis');
    expect(progress.at(-1)).toBe('reconciled 2 in-flight jobs with Redis');
  });

  // SQLite-only: a second connection holding SQLite's single write lock is what stalls the
  // claim writer; PostgreSQL has no store-wide write lock to hold.
  it.skipIf(TEST_ENGINE === 'postgres')('leaves claims to Redis while SQLite takes no writes, then copies them by a reconcile', async () => {
    const { backend, http, operator } = await start({}, { maxUnwrittenClaims: 1, restartGraceMs: 300 });
    const ids: string[] = (await http.post('/jobs/batch', operator, { runs: [launch, launch, launch] })).body.jobs.map((job: { jobId: string }) => job.jobId);
    // Another connection holds the store's write lock: the claims' copies cannot be written.
    const other = new BetterSqlite3(backend.db.name);
    other.exec('BEGIN IMMEDIATE');
    const tokens: string[] = [];
    try {
      for (let i = 0; i < 3; i += 1) tokens.push((await http.post('/jobs/next', SERVICE)).body.jobToken);
      // One claim is held for the writer; the other two only in Redis.
      expect(ids.map((id) => backend.app.runJobs.dispatches.pendingTokenHash(id) !== undefined)).toEqual([true, false, false]);
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    await until(async () => {
      const states = await Promise.all(ids.map(async (id) => (await http.get(`/jobs/${id}`)).body.state));
      return states.every((state) => state === 'dispatched');
    }, 15_000, 'the claims left to Redis copied to SQLite');
    expect((await backend.app.runJobs.jobs.get(ids[2]!))!.tokenHash).not.toBeNull();
    // A driver's token of such a claim was good all along: it is checked against Redis.
    expect((await http.post(`/jobs/${ids[2]}/status`, tokens[2]!, { state: 'starting' })).status).toBe(204);
  }, 30_000);

  it('names the first lost job it left alone as too young, and a later pass can start from it', async () => {
    const { backend, http, operator } = await start();
    const ids: string[] = (await http.post('/jobs/batch', operator, { runs: [launch, launch, launch] })).body.jobs.map((job: { jobId: string }) => job.jobId);
    const { queue } = backend.app.runJobs;
    for (const id of [ids[0]!, ids[2]!]) {
      await backend.app.jobsRedis.lrem(queue.keys.wait, 0, id);
      await backend.app.jobsRedis.del(queue.keys.run(id), queue.keys.bullJobPrefix + id);
    }
    const seqOf = async (id: string) => (await backend.app.runJobs.jobs.get(id))!.seq;
    const young = await reconcileJobs(backend.app.runJobs, backend.app.harnessConfig, { exclusive: false, graceMs: 60_000 });
    expect(young).toMatchObject({ requeued: 0, firstTooYoung: await seqOf(ids[0]!) });
    // From just before the third, with nothing too young any more: only the third is queued again.
    const later = await reconcileJobs(backend.app.runJobs, backend.app.harnessConfig, { exclusive: false, graceMs: 0, afterSeq: (await seqOf(ids[2]!)) - 1 });
    expect(later).toMatchObject({ requeued: 1, firstTooYoung: null });
    expect(await queue.states([ids[0]!, ids[2]!])).toEqual([null, expect.objectContaining({ state: 'queued' })]);
  });

  it('leaves a fresh half-enqueued job to its own process when several processes share Redis', async () => {
    const { backend, http, operator } = await start();
    const { jobId } = (await http.post('/jobs', operator, launch)).body;
    const queue = backend.app.runJobs.queue;
    // As if another process had inserted the row and not yet added the job to Redis.
    await backend.app.jobsRedis.lrem(queue.keys.wait, 0, jobId);
    await backend.app.jobsRedis.del(queue.keys.run(jobId), queue.keys.bullJobPrefix + jobId);
    const again = await restart(backend, { reapOrphanedJobs: false });
    expect((await again.http.get(`/jobs/${jobId}`)).body.state).toBe('queued');
    expect(await again.app.runJobs.queue.bull.getJob(jobId)).toBeUndefined();
  });

  it('puts back at boot the queue entry of a publish job live in SQLite that Redis lost', async () => {
    const { backend } = await start();
    const record = runRecord();
    await seedRun(backend, record);
    // Claimed in SQLite, never queued: as a Redis that lost the entry leaves it.
    const { job } = await backend.app.runs.publishJobs.claim(String(record.id));
    expect(await backend.app.runs.publishQueue.getJob(job.id)).toBeUndefined();
    const again = await restart(backend);
    expect((await again.app.runs.publishQueue.getJob(job.id))?.data).toEqual({ publishJobId: job.id, runId: record.id });
  });

  it('keeps queued jobs across a restart of Redis (append-only file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evb-aof-'));
    let redis = await startManagedRedis({ dir });
    cleanups.push(async () => {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const { backend, http, operator } = await start({ REDIS_URL: redis.url });
    const ids = (await http.post('/jobs/batch', operator, { runs: [launch, launch, launch] })).body.jobs.map((j: { jobId: string }) => j.jobId);
    await backend.app.close();
    await redis.stop();
    redis = await startManagedRedis({ dir });
    const app = await buildApp({ config: { ...backend.config, redisUrl: redis.url }, db: backend.app.sqlite, store: backend.store, jobs: jobsOptions });
    cleanups.push(() => app.close());
    const again = jobsHttp(await app.listen({ host: '127.0.0.1', port: 0 }));
    const claimed = [];
    for (let i = 0; i < 3; i++) claimed.push((await again.post('/jobs/next', SERVICE)).body.jobId);
    expect(claimed).toEqual(ids);
    expect(await app.runJobs.queue.bull.getActiveCount()).toBe(3);
  });
});

describe('several processes', () => {
  it('delivers a transition made by one process to consoles on another', async () => {
    const a = await start();
    // A second API process over the same store and Redis prefix.
    const sibling = await buildApp({ config: a.backend.config, db: a.backend.app.sqlite, store: a.backend.store, jobs: jobsOptions });
    cleanups.push(() => sibling.close());
    const b = { http: jobsHttp(await sibling.listen({ host: '127.0.0.1', port: 0 })), operator: a.operator };
    const console_ = await openConsole(a.base);
    cleanups.push(async () => console_.close());
    // The topic change reaches the other process, which forwards it to the one holding the stream.
    expect((await b.http.put(`/notifications/${await console_.streamId}/topics`, undefined, { runs: true })).status).toBe(204);
    expect((await b.http.put('/notifications/gone/topics', undefined, { runs: true })).status).toBe(404);
    // No wait: b's publishes reach a in order, so the change applies before b's next event.
    const { jobId } = (await b.http.post('/jobs', b.operator, launch)).body;
    const frame = await console_.next((f) => f.event === 'run' && JSON.parse(f.data).runId === jobId);
    expect(JSON.parse(frame.data)).toMatchObject({ kind: 'enqueued', state: 'queued' });
  });
});
