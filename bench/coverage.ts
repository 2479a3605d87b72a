/**
 * Coverage benchmark (`npm run bench -- coverage`), over keep-alive HTTP against the real app,
 * on each engine `--store` names (default both; the PostgreSQL store is a `store copy` of the
 * SQLite one, and the raw side runs on the engine's own driver):
 *
 * - the matrix of a plan of 20 cases x 50 combinations (1,000 cells) over 100,000 stored
 *   runs, against the grouped queries it needs (cell counts over runs and over jobs,
 *   the plan's jobs in flight) run directly in this process. PASS within 3x.
 * - a top-up that enqueues 500 runs (500 cells of one run), against `POST /jobs/batch` with
 *   the same 500 launches. PASS within 2x. Each round is undone (halt-all, cancel-all)
 *   untimed, so every timed call starts from the same queue.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAuthApp } from '../src/auth/app.js';
import { AUTH_MIGRATIONS } from '../src/auth/auth-store.js';
import { cellCountStatements, cellsParam, originInFlightStatement, sortedQueueStatement } from '../src/coverage/cell-counts.js';
import { planCells, planMatrix } from '../src/coverage/plan-matrix.js';
import { sqliteStore } from '../src/db/dialect.js';
import { planQueue } from '../src/coverage/plan-schedule-actions.js';
import type { ManagedPostgres } from '../src/db/managed-postgres.js';
import { openDatabase } from '../src/db/open-database.js';
import type { LaunchCatalog } from '../src/jobs/launch-catalog.js';
import { startBenchBackend, type BenchBackend } from './lib/bench-backend.js';
import { benchRedis } from './lib/bench-redis.js';
import { benchEngines, benchPostgres, copiedToPostgres, rawHandle, rawQuery, rawText } from './lib/bench-store.js';
import { keepAliveClient } from './lib/keep-alive-client.js';
import { machineLine } from './lib/machine.js';
import { seedRuns } from './lib/seed-runs.js';
import { longestStall, ms, printTable, summarize, type LatencySummary } from './lib/stats.js';
import { syntheticRunRecord } from './lib/synthetic-run.js';

const CASES = 20;
const MODELS = 50;
const RUNS = 100_000;
const TOPUP_CASES = 10;
const MATRIX_ITERATIONS = 60;
const TOPUP_ROUNDS = 12;
const PRICE = { listPriceInputPerMtok: 3, listPriceCachedInputPerMtok: 0.3, listPriceOutputPerMtok: 15, listPriceAsOf: '2026-11-01' };
// The catalog is another area's; a fixed answer keeps the benchmark about coverage.
const catalog: LaunchCatalog = { version: async () => ({ engines: ['none'], variants: ['base'], testType: 'end-to-end', maxRuntimeSeconds: 1800 }), caseExists: async () => true };

const model = (i: number) => `vendor/model-${String(i).padStart(2, '0')}`;

function record(i: number) {
  return syntheticRunRecord(i, { testCaseSlug: `case-${i % CASES}`, testCaseVersion: 'v1.0.0', harnessSlug: 'claude', modelId: model(Math.floor(i / CASES) % MODELS) }, {
    state: i % 7 === 0 ? 'timed_out' : 'completed',
  });
}

interface Side {
  run: () => Promise<unknown>;
  /** Untimed: puts things back so the next round starts from the same state. */
  undo?: () => Promise<unknown>;
}

/** Times two sides alternately so both see the same load on this shared machine. */
async function timePaired(rounds: number, warmup: number, a: Side, b: Side): Promise<[LatencySummary, LatencySummary]> {
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < warmup + rounds; i++) {
    for (const [index, side] of [a, b].entries()) {
      const start = process.hrtime.bigint();
      await side.run();
      if (i >= warmup) samples[index]!.push(Number(process.hrtime.bigint() - start) / 1e6);
      await side.undo?.();
    }
  }
  return [summarize(samples[0]), summarize(samples[1])];
}

export default async function benchCoverage(): Promise<boolean> {
  const engines = benchEngines();
  const redis = await benchRedis();
  const authDir = mkdtempSync(join(tmpdir(), 'evb-bench-auth-'));
  const authDb = openDatabase(join(authDir, 'auth.sqlite'), AUTH_MIGRATIONS);
  const auth = await buildAuthApp({ store: sqliteStore(authDb), tokenLifetimeMs: null });
  const authUrl = await auth.listen({ host: '127.0.0.1', port: 0 });
  const backend = (env: Record<string, string> = {}) => startBenchBackend(redis.url, { REDIS_PREFIX: `b${randomUUID().slice(0, 8)}`, RUN_WORKERS: 'false', AUTH_URL: authUrl, ...env }, { catalog });
  const sqlite = await backend();
  let cluster: ManagedPostgres | null = null;
  console.log(`${machineLine()} at start`);
  try {
    const { app, db } = sqlite;
    const registered = await auth.inject({ method: 'POST', url: '/auth/register', payload: { username: 'bench', password: 'correct horse battery', displayName: 'Bench' } });
    const { token, account } = registered.json() as { token: string; account: { id: string } };
    const headers = { authorization: `Bearer ${token}` };
    for (let i = 0; i < MODELS; i++) {
      await app.models.create({ slug: model(i), ...PRICE });
      // A billed rate on record, so no launch asks the routing provider for one.
      await app.models.observeBilledRate(model(i), { inputPerMtok: 3, cachedInputPerMtok: 0.3, outputPerMtok: 15 }, 'refresh');
    }

    const seedStart = Date.now();
    const insertReview = db.prepare(`INSERT INTO run_reviews (run_id, reviewer_id, reviewer, username, writeup, reviewed_at) VALUES (?, ?, 'Bench', 'bench', 'ok', '2025-01-01T00:00:00Z')`);
    await seedRuns(sqlite.store, RUNS, record);
    // The reviewer has reviewed a fifth of the runs.
    for (let i = 0; i < RUNS; i += 5) insertReview.run(record(i).id, account.id);
    db.exec('ANALYZE');
    console.log(`seeded ${RUNS} runs in ${Date.now() - seedStart} ms`);

    const rows: Array<Record<string, string>> = [];
    // The PostgreSQL store is copied before either side is measured, so both start from the same rows.
    if (engines.includes('postgres')) cluster = await benchPostgres();
    const url = cluster ? await copiedToPostgres(cluster, sqlite.sqliteFile!, 'coverage') : null;
    if (engines.includes('sqlite')) rows.push(...(await measureCoverage(sqlite, null, account.id, headers)));
    if (url) {
      const postgres = await backend({ DATABASE_URL: url });
      try {
        rows.push(...(await measureCoverage(postgres, url, account.id, headers)));
      } finally {
        await postgres.close();
      }
    }
    printTable(`Coverage at ${RUNS} runs (p50, sequential keep-alive; ${machineLine()}; the machine is shared)`, rows);
    return rows.every((row) => row.verdict !== 'FAIL');
  } finally {
    await sqlite.close();
    await cluster?.stop();
    await auth.close();
    authDb.close();
    rmSync(authDir, { recursive: true, force: true });
    await redis.stop();
  }
}

/** The matrix, the review queue and a top-up on one backend, each against its baseline. */
async function measureCoverage(backend: BenchBackend, databaseUrl: string | null, accountId: string, headers: Record<string, string>): Promise<Array<Record<string, string>>> {
  const { app, store, url: base } = backend;
  const handle = await rawHandle(backend, databaseUrl);
  const client = keepAliveClient(base);
  const { engine } = store;
  try {
    const combos = Array.from({ length: MODELS }, (_, i) => ({ harness: 'claude', model: model(i) }));
    const pins = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ slug: `case-${from + i}`, version: 'v1.0.0', variant: 'base' }));
    const create = async (body: object) => JSON.parse((await client.send('POST', '/coverage-plans', JSON.stringify(body), headers)).body) as { id: string };

    // The matrix: 1,000 cells over the 100,000 runs.
    const matrixPlan = await create({ name: 'matrix', runsPerCell: 100, combos, cases: pins(0, CASES) });
    const plan = (await app.coverage.plans.get(accountId, matrixPlan.id))!;
    const cells = await planCells(app.coverage, accountId, plan);
    const counts = cellCountStatements(engine, { cells: cellsParam(cells), reviewer: accountId });
    const statements = [counts.runs, counts.jobs, originInFlightStatement(engine, `plan:${matrixPlan.id}`)].map((query) => rawQuery(handle, store, query));
    for (const [label, statement] of [['runs', statements[0]!], ['jobs', statements[1]!]] as const) console.log(`  ${engine} ${label} counts: ${await statement.plan()}`);
    const matrixUrl = `/coverage-plans/${matrixPlan.id}/coverage`;
    const check = JSON.parse((await client.send('GET', matrixUrl, undefined, headers)).body) as { cellsTotal: number; runsUnreviewed: number; cells: Array<{ completed: number }> };
    const count = async (text: string) => Number(Object.values((await rawText(handle, text).run())[0] as object)[0]);
    const completed = await count(`SELECT COUNT(*) AS n FROM runs WHERE state = 'completed'`);
    const unreviewed = await count(`SELECT COUNT(*) AS n FROM runs AS r WHERE state = 'completed' AND NOT EXISTS (SELECT 1 FROM run_reviews AS v WHERE v.run_id = r.id)`);
    const counted = check.cells.reduce((sum, cell) => sum + cell.completed, 0);
    if (check.cellsTotal !== CASES * MODELS || counted !== completed || check.runsUnreviewed !== unreviewed) {
      throw new Error(`unexpected matrix on ${engine}: ${check.cellsTotal} cells, ${counted} of ${completed} completed, ${check.runsUnreviewed} of ${unreviewed} unreviewed`);
    }
    const [matrixHttp, matrixRaw] = await timePaired(MATRIX_ITERATIONS, 5, { run: () => client.send('GET', matrixUrl, undefined, headers) }, {
      run: async () => {
        for (const statement of statements) await statement.run();
      },
    });

    // How long the matrix's work holds the server's event loop, which claims and every other
    // request share: the route's call, without this process's client reading the 380 KB answer.
    const holds: number[] = [];
    for (let i = 0; i < 5; i++) holds.push(await longestStall(() => planMatrix(app.coverage, accountId, plan)));
    const matrixHold = summarize(holds);

    // The review queue's first page, against the one sorted statement over every cell it replaced.
    const queueUrl = `/coverage-plans/${matrixPlan.id}/queue`;
    const sortedQueue = rawQuery(handle, store, sortedQueueStatement(engine, { cells: cellsParam(cells), reviewer: accountId }, 51));
    const [queueHttp, queueSorted] = await timePaired(MATRIX_ITERATIONS, 5, { run: () => client.send('GET', queueUrl, undefined, headers) }, {
      run: () => sortedQueue.run(),
    });
    const queueHolds: number[] = [];
    for (let i = 0; i < 5; i++) queueHolds.push(await longestStall(async () => planQueue(app.coverage, accountId, matrixPlan.id)));
    const queueHold = summarize(queueHolds);

    // The top-up: 500 cells of one run each, over cases no run covers yet.
    const topUpPlan = await create({ name: 'topup', runsPerCell: 1, combos, cases: pins(CASES, TOPUP_CASES), schedule: { bufferTarget: { kind: 'unbounded' } } });
    const launches = pins(CASES, TOPUP_CASES).flatMap((pin) => combos.map((combo) => ({ testCase: pin.slug, version: pin.version, variant: pin.variant, ...combo })));
    const batchBody = JSON.stringify({ runs: launches });
    const expectEnqueued = (body: string, count: (parsed: never) => number) => {
      const enqueued = count(JSON.parse(body) as never);
      if (enqueued !== launches.length) throw new Error(`expected ${launches.length} launches, got ${enqueued}: ${body.slice(0, 300)}`);
    };
    const [topUpHttp, batchHttp] = await timePaired(
      TOPUP_ROUNDS,
      2,
      {
        run: async () => {
          const response = await client.send('POST', `/coverage-plans/${topUpPlan.id}/topup`, undefined, headers);
          expectEnqueued(response.body, (parsed: { enqueued: number }) => parsed.enqueued);
        },
        undo: async () => {
          await client.send('POST', `/coverage-plans/${topUpPlan.id}/halt`, undefined, headers);
          await client.send('POST', `/coverage-plans/${topUpPlan.id}/pause`, JSON.stringify({ paused: false }), headers);
        },
      },
      {
        run: async () => {
          const response = await client.send('POST', '/jobs/batch', batchBody, headers);
          expectEnqueued(response.body, (parsed: { jobs: Array<{ jobId?: string }> }) => parsed.jobs.filter((job) => job.jobId).length);
        },
        undo: () => client.send('POST', '/jobs/cancel-waiting', undefined, headers),
      },
    );
    const matrixRatio = matrixHttp.p50 / matrixRaw.p50;
    return [
      { engine, measure: `matrix, ${CASES * MODELS} cells`, http: ms(matrixHttp.p50), baseline: ms(matrixRaw.p50), 'baseline is': 'raw grouped queries', ratio: matrixRatio.toFixed(2), target: '<= 3', verdict: matrixRatio <= 3 ? 'PASS' : 'FAIL' },
      {
        engine, measure: 'matrix: longest hold of the event loop (the route call)', http: ms(matrixHold.p50), baseline: ms(matrixRaw.p50), 'baseline is': 'the same queries',
        ratio: (matrixHold.p50 / matrixRaw.p50).toFixed(2), target: '<= 0.2', verdict: matrixHold.p50 <= matrixRaw.p50 / 5 ? 'PASS' : 'FAIL',
      },
      {
        engine, measure: 'review queue, first 50', http: ms(queueHttp.p50), baseline: ms(queueSorted.p50), 'baseline is': 'one statement sorting every cell',
        ratio: (queueHttp.p50 / queueSorted.p50).toFixed(2), target: '', verdict: '',
      },
      {
        engine, measure: 'review queue: longest hold of the event loop (the route call)', http: ms(queueHold.p50), baseline: ms(queueSorted.p50),
        'baseline is': 'one statement sorting every cell', ratio: (queueHold.p50 / queueSorted.p50).toFixed(2), target: '<= 0.2',
        verdict: queueHold.p50 <= queueSorted.p50 / 5 ? 'PASS' : 'FAIL',
      },
      { engine, measure: `top-up, ${launches.length} runs`, http: ms(topUpHttp.p50), baseline: ms(batchHttp.p50), 'baseline is': 'POST /jobs/batch, same launches', ratio: (topUpHttp.p50 / batchHttp.p50).toFixed(2), target: '<= 2', verdict: topUpHttp.p50 / batchHttp.p50 <= 2 ? 'PASS' : 'FAIL' },
    ];
  } finally {
    client.close();
    await handle.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchCoverage();
