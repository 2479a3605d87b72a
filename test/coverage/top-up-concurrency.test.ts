import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { planOrigin } from '../../src/coverage/coverage-plans.js';
import { measurePlan } from '../../src/coverage/plan-matrix.js';
import { targetOf } from '../../src/coverage/schedule-owner.js';
import { prepareTopUp } from '../../src/coverage/top-up-walk.js';
import { openStore, type OpenedStore } from '../../src/db/open-store.js';
import { claimNext } from '../helpers/dispatcher.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'concurrency-dispatch';
const MODELS = ['vendor/m1', 'vendor/m2', 'vendor/m3', 'vendor/m4'];
// Cells are counted globally, so each test covers cases of its own.
const CASES = { a: ['a1', 'a2', 'a3', 'a4', 'a5'], b: ['b1', 'b2', 'b3', 'b4', 'b5'], c: ['c1', 'c2'], d: ['d1', 'd2', 'd3', 'd4', 'd5'] };
let first: TestBackend;
const siblings: Array<{ app: FastifyInstance; opened: OpenedStore }> = [];
let token: string;
let accountId: string;

/** Another API process over the same store (SQLite file or PostgreSQL database) and the same Redis prefix (several processes share one Redis). */
async function sibling(env: Record<string, string> = {}) {
  const config = {
    ...loadConfig({ DATA_DIR: first.dataDir, REDIS_URL: first.config.redisUrl!, REDIS_PREFIX: first.config.redisPrefix, AUTH_CACHE_SECONDS: '600', LOG_LEVEL: 'silent', SERVICE_TOKEN: SERVICE, REAP_ORPHANED_JOBS: 'false', ...(first.config.databaseUrl ? { DATABASE_URL: first.config.databaseUrl } : {}), ...env }),
    authUrl: first.config.authUrl,
    redisUrl: first.config.redisUrl,
  };
  const opened = await openStore(config);
  const app = await buildApp({ config, db: opened.sqlite, store: opened.store });
  siblings.push({ app, opened });
  return app;
}

beforeAll(async () => {
  // Tokens are verified once per process, so the burst below measures top-ups, not the auth service.
  first = await startTestBackend({ SERVICE_TOKEN: SERVICE, REAP_ORPHANED_JOBS: 'false', AUTH_CACHE_SECONDS: '600' }, { pricedModels: MODELS });
  await seedCatalog(first.store, first.dataDir, Object.values(CASES).flat().map((slug) => ({ slug, version: 'v1.0.0' })));
  const registered = await first.auth.register('planner');
  token = registered.token;
  accountId = registered.account.id;
});
afterAll(async () => {
  for (const { app, opened } of siblings) {
    await app.close();
    await opened.close();
  }
  await first?.close();
});

async function createPlan(app: FastifyInstance, cases: string[], runsPerCell: number, bufferTarget: object) {
  const response = await app.inject({
    method: 'POST', url: '/coverage-plans', headers: bearer(token),
    payload: {
      name: `plan ${runsPerCell}`, runsPerCell, schedule: { bufferTarget },
      combos: MODELS.map((model) => ({ harness: 'claude', model })),
      cases: cases.map((slug) => ({ slug, version: 'v1.0.0', variant: 'base' })),
    },
  });
  expect(response.statusCode).toBe(201);
  return response.json().id as string;
}

const jobsOf = async (origin: string) =>
  (await first.store.db.selectFrom('jobs').where('origin', '=', origin).select((eb) => eb.fn.countAll<number>().as('rows')).executeTakeFirstOrThrow()).rows;

async function topUpFromBoth(apps: FastifyInstance[], planId: string, calls: number) {
  for (const app of apps) expect((await app.inject({ url: '/coverage-settings', headers: bearer(token) })).statusCode).toBe(200);
  const answers = await Promise.all(Array.from({ length: calls }, (_, i) =>
    apps[i % apps.length]!.inject({ method: 'POST', url: `/coverage-plans/${planId}/topup`, headers: bearer(token) })));
  for (const answer of answers) expect(answer.statusCode).toBe(200);
  return answers.map((answer) => answer.json() as { enqueued: number; skipped?: string; cells: Array<{ jobIds: string[] }> });
}

describe('top-ups of one plan from two processes', () => {
  it('20 concurrent top-ups enqueue the shortfall exactly once (unbounded target)', async () => {
    const other = await sibling();
    const planId = await createPlan(first.app, CASES.a, 3, { kind: 'unbounded' });
    const answers = await topUpFromBoth([first.app, other], planId, 20);
    expect(answers.reduce((sum, answer) => sum + answer.enqueued, 0)).toBe(60);
    for (const answer of answers) expect(answer.enqueued === 60 || answer.enqueued === 0).toBe(true);
    expect(answers.filter((answer) => answer.enqueued === 60)).toHaveLength(1);
    expect(await jobsOf(planOrigin(planId))).toBe(60);
    const matrix = (await other.inject({ url: `/coverage-plans/${planId}/coverage`, headers: bearer(token) })).json();
    expect(matrix.cells.map((cell: { inFlight: number }) => cell.inFlight)).toEqual(new Array(20).fill(3));
    expect(matrix.runsMissing).toBe(0);
  });

  it('with a bounded target, the concurrent top-ups together launch whole cells up to it once', async () => {
    const other = siblings[0]!.app;
    const planId = await createPlan(other, CASES.b, 3, { kind: 'bounded', runs: 10 });
    const answers = await topUpFromBoth([first.app, other], planId, 20);
    // Whole cells of 3 until occupancy reaches 10: four cells, the last overshooting to 12.
    expect(answers.reduce((sum, answer) => sum + answer.enqueued, 0)).toBe(12);
    expect(answers.filter((answer) => answer.enqueued > 0)).toEqual([expect.objectContaining({ enqueued: 12 })]);
    expect(answers.filter((answer) => answer.enqueued === 0).every((answer) => answer.skipped === 'busy' || answer.skipped === undefined)).toBe(true);
    expect(await jobsOf(planOrigin(planId))).toBe(12);
  });
});

describe('a top-up interrupted by a crash', () => {
  it('leaves whole cells that the next top-up counts once, and a restart queues them', async () => {
    const planId = await createPlan(first.app, CASES.c, 2, { kind: 'bounded', runs: 4 });
    const ctx = first.app.coverage;
    // What a top-up had committed when its process died: every launch of the cells it chose
    // written to SQLite in the one transaction enqueue makes, before anything reached Redis.
    const plan = (await ctx.plans.get(accountId, planId))!;
    const measured = await measurePlan(ctx, accountId, plan);
    const { chosen } = (await prepareTopUp(ctx.jobs, accountId, planOrigin(planId), await targetOf(ctx, accountId, plan.schedule), measured, async () => true))!;
    expect(chosen.map((item) => item.launches.length)).toEqual([2, 2]);
    await ctx.jobs.jobs.insert(chosen.flatMap((item) => item.launches.map((launch) => launch.row)));

    // The next top-up, from any process, counts those jobs in flight and launches nothing twice.
    const next = (await first.app.inject({ method: 'POST', url: `/coverage-plans/${planId}/topup`, headers: bearer(token) })).json();
    expect(next).toMatchObject({ outstanding: 4, enqueued: 0 });
    const matrix = (await first.app.inject({ url: `/coverage-plans/${planId}/coverage`, headers: bearer(token) })).json();
    expect(matrix.cells.slice(0, 3).map((cell: { inFlight: number }) => cell.inFlight)).toEqual([2, 2, 0]);

    // A process restarting alone on the store (single box) queues the committed jobs in Redis.
    const restarted = await sibling({ REAP_ORPHANED_JOBS: 'true' });
    const http = jobsHttp(await restarted.listen({ host: '127.0.0.1', port: 0 }));
    const committed = new Set(chosen.flatMap((item) => item.launches.map((launch) => launch.row.id)));
    const claimed: string[] = [];
    for (let claim = await claimNext(http, SERVICE); claim; claim = await claimNext(http, SERVICE)) {
      if (claim.origin === planOrigin(planId)) claimed.push(claim.jobId);
    }
    expect(new Set(claimed)).toEqual(committed);
  });
});

describe('a top-up walk', () => {
  it('does not ask the store whether its owner is still fed once per cell when the cells prepare fast', async () => {
    const planId = await createPlan(first.app, CASES.d, 1, { kind: 'unbounded' });
    const ctx = first.app.coverage;
    const plan = (await ctx.plans.get(accountId, planId))!;
    let asked = 0;
    const stillFed = async () => {
      asked += 1;
      return true;
    };
    const { chosen } = (await prepareTopUp(ctx.jobs, accountId, planOrigin(planId), await targetOf(ctx, accountId, plan.schedule), await measurePlan(ctx, accountId, plan), stillFed))!;
    // 20 cells prepared in well under a second: a halt still stops the walk within one check interval of pausing.
    expect(chosen).toHaveLength(CASES.d.length * MODELS.length);
    expect(asked).toBeLessThan(chosen.length / 2);
  });
});
