import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { openStore } from '../../src/db/open-store.js';
import { prepareLaunch } from '../../src/jobs/enqueue-runs.js';
import type { JobsContext } from '../../src/jobs/jobs-context.js';
import { queueStrandedJobs } from '../../src/jobs/reconcile-jobs.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

const MODEL = 'openai/gpt-5';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL };
const GRACE_MS = 300;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(restartGraceMs = GRACE_MS) {
  const backend = await startTestBackend({}, { jobs: { restartGraceMs }, pricedModels: [MODEL] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  cleanups.push(() => backend.close());
  const { account } = await backend.auth.register('stranded');
  return { backend, accountId: account.id };
}

/** Another API process on the same store and Redis prefix (reaping off, as with several processes). */
async function sibling(backend: TestBackend): Promise<FastifyInstance> {
  const opened = await openStore(backend.config);
  const app = await buildApp({ config: backend.config, db: opened.sqlite, store: opened.store, jobs: { restartGraceMs: GRACE_MS } });
  cleanups.push(async () => {
    await app.close();
    await opened.close();
  });
  return app;
}

/** What a process that died between a launch's SQLite commit and its Redis add leaves: queued rows Redis never saw. */
async function strand(ctx: JobsContext, accountId: string, count: number): Promise<string[]> {
  const launches = [];
  for (let i = 0; i < count; i++) launches.push(await prepareLaunch(ctx, accountId, launch, {}, new Map()));
  await ctx.jobs.insert(launches.map((item) => item.row));
  return launches.map((item) => item.row.id);
}

async function claimAll(ctx: JobsContext): Promise<string[]> {
  const claimed: string[] = [];
  for (let claim = await ctx.queue.claim('hash'); claim.claimed; claim = await ctx.queue.claim('hash')) claimed.push(claim.claimed.id);
  return claimed;
}

describe('jobs a launch left in SQLite without their Redis add', () => {
  it('are queued after a restart once past the grace, though they were too young at boot', async () => {
    // A process whose own pass would not come round before it dies.
    const { backend, accountId } = await start(60_000);
    const ids = await strand(backend.app.runJobs, accountId, 3);
    await backend.app.close();
    // The next process boots at once: the rows are too young to tell from a launch under way
    // in another process, so boot leaves them; its periodic pass queues them past the grace.
    const again = await sibling(backend);
    await until(async () => (await again.runJobs.queue.waitingCount()) === 3, 10_000, 'the stranded jobs queued');
    expect((await claimAll(again.runJobs)).sort()).toEqual([...ids].sort());
  });

  it('are queued once by any process, with several passing over them at once', async () => {
    const { backend, accountId } = await start();
    const other = await sibling(backend);
    // Stranded after both processes booted, by a third that died.
    const ids = await strand(backend.app.runJobs, accountId, 5);
    await until(async () => (await backend.app.runJobs.queue.waitingCount()) === 5, 10_000, 'the stranded jobs queued');
    // Several more periods of both processes' passes queue nothing twice.
    const more = await strand(backend.app.runJobs, accountId, 1);
    await until(async () => (await other.runJobs.queue.states(more))[0] !== null, 10_000, 'a later stranded job queued');
    expect((await claimAll(other.runJobs)).sort()).toEqual([...ids, ...more].sort());
  });

  // Issue 39 item 5: PostgreSQL gives `seq` at insert, not commit, so a launch committing
  // after the pass may hold a lower `seq` than a row the pass saw. The mark stays behind every young row.
  it('keeps the next pass\'s mark before a young job, even one Redis holds', async () => {
    const { backend, accountId } = await start(60_000);
    const ctx = backend.app.runJobs;
    const [stranded] = await strand(ctx, accountId, 1);
    // Stamped old enough to settle; a launch queued now stays young.
    await backend.store.db.updateTable('jobs').set({ enqueued_at: new Date(Date.now() - 120_000).toISOString() }).where('id', '=', stranded!).execute();
    const launched = await backend.app.inject({ method: 'POST', url: '/jobs/batch', headers: { authorization: `Bearer ${(await backend.auth.register('launcher')).token}` }, payload: { runs: [launch] } });
    expect(launched.statusCode).toBe(200);
    const young = await ctx.jobs.get(launched.json().jobs[0].jobId);
    const pass = await queueStrandedJobs(ctx, { afterSeq: 0, graceMs: 60_000 });
    expect(pass.requeued).toBe(1);
    expect(pass.nextAfterSeq).toBeLessThan(young!.seq);
    expect(pass.nextAfterSeq).toBe((await ctx.jobs.get(stranded!))!.seq);
  });
});
