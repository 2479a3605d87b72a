import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { isDeepStrictEqual } from 'node:util';
import { createPlan } from '../src/coverage/coverage-plans.js';
import { planMatrix } from '../src/coverage/plan-matrix.js';
import { startManagedPostgres } from '../src/db/managed-postgres.js';
import { migratePostgres } from '../src/db/migrate-postgres.js';
import { copyStore } from '../src/db/store-copy/copy-store.js';
import { storeLocation } from '../src/db/store-copy/store-location.js';
import { ladderProgress } from '../src/ladders/ladder-progress.js';
import { createLadder } from '../src/ladders/manage-ladders.js';
import { startBenchBackend, type BenchBackend } from './lib/bench-backend.js';
import { benchRedis } from './lib/bench-redis.js';
import { machineLine } from './lib/machine.js';
import { seedRuns } from './lib/seed-runs.js';
import { printTable } from './lib/stats.js';
import { syntheticRunRecord } from './lib/synthetic-run.js';

const RUNS = 100_000;
const BATCH = 1000;

const ACCOUNT = 'bench-account';
const COMBOS = Array.from({ length: 20 }, (_, m) => ({ harness: 'codex', model: `vendor/model-${m}` }));
const CASES = Array.from({ length: 40 }, (_, c) => ({ slug: `case-${c}`, version: 'v1.0.0', variant: 'base' }));

/**
 * `eval-backend store copy` of a store of 100,000 runs, SQLite -> PostgreSQL and back, with
 * its verification (every table read back and checksummed), against two raw baselines in
 * the same run: the same runs rows moved SQLite -> PostgreSQL by the plainest client loop
 * (one SELECT iterated, one unnest INSERT per 1,000 rows, no checks), and PostgreSQL's own
 * `INSERT … SELECT` of them inside the server (no client at all). Prints rows/s for each.
 * Then the app started on the copy must answer what the app on the source answers: runs
 * listings, a coverage plan's matrix, a ladder's board and the statistics.
 */
export default async function benchStoreCopy(): Promise<boolean> {
  console.log(machineLine());
  const dir = mkdtempSync(join(tmpdir(), 'evb-bench-copy-'));
  // Its own folder under tmpdir(): the server's user must reach it, and the socket path must stay short.
  const pgDir = mkdtempSync(join(tmpdir(), 'evb-bench-pg-'));
  const server = await startManagedPostgres({ dir: pgDir });
  const redis = await benchRedis();
  const apps: BenchBackend[] = [];
  try {
    // The source is a bench app's own store, so the same app can answer from it afterwards.
    const origin = await startBenchBackend(redis.url, { RUN_WORKERS: 'false' });
    apps.push(origin);
    const sqliteFile = origin.sqliteFile!;
    const seedStart = Date.now();
    await seedRuns(origin.store, RUNS, (i) => syntheticRunRecord(i, { testCaseSlug: `case-${i % 40}`, testCaseVersion: 'v1.0.0', harnessSlug: 'codex', modelId: `vendor/model-${i % 20}` }, {
      cost: (i % 97) / 10, state: i % 9 === 0 ? 'timed_out' : 'completed', runTimeSeconds: 100 + (i % 700),
    }));
    console.log(`seeded ${RUNS} runs in ${Date.now() - seedStart} ms`);
    const plan = await createPlan(origin.app.coverage, ACCOUNT, { name: 'matrix', runsPerCell: 50, combos: COMBOS, cases: CASES });
    const ladder = await createLadder(origin.app.ladders, ACCOUNT, { name: 'board', runsPerCell: 3, combos: COMBOS, rungs: CASES.slice(0, 20) });

    const timed = async (work: () => Promise<unknown>) => {
      const start = performance.now();
      await work();
      return (performance.now() - start) / 1000;
    };
    const toPostgres = await server.createDatabase('copy_there');
    let copiedRows = 0;
    const there = await timed(async () => {
      const reports = await copyStore(storeLocation(sqliteFile, dir), storeLocation(toPostgres, dir));
      if (reports.some((r) => !r.ok)) throw new Error('the copy did not verify');
      copiedRows = reports.reduce((n, r) => n + r.targetRows, 0);
    });
    const back = await timed(async () => {
      const reports = await copyStore(storeLocation(toPostgres, dir), storeLocation(join(dir, 'back.sqlite'), dir));
      if (reports.some((r) => !r.ok)) throw new Error('the copy back did not verify');
    });

    // Baseline 1: the runs rows alone, one plain client loop, nothing checked.
    const rawUrl = await server.createDatabase('copy_raw');
    const pool = new pg.Pool({ connectionString: rawUrl, max: 1 });
    await migratePostgres(pool);
    const source = new BetterSqlite3(sqliteFile, { readonly: true });
    source.defaultSafeIntegers(true);
    const columns = source.prepare<[], { name: string; type: string }>("SELECT name, type FROM pragma_table_info('runs') ORDER BY cid").all();
    const { rows: pgTypes } = await pool.query<{ name: string; type: string }>("SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = 'runs'");
    const typeOf = new Map(pgTypes.map((c) => [c.name, c.type]));
    const insert = `INSERT INTO runs (${columns.map((c) => `"${c.name}"`).join(', ')}) SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${typeOf.get(c.name)}[]`).join(', ')})`;
    const plain = await timed(async () => {
      await pool.query('BEGIN');
      let batch: unknown[][] = [];
      const flush = async () => {
        await pool.query(insert, columns.map((_, i) => batch.map((row) => row[i])));
        batch = [];
      };
      for (const row of source.prepare('SELECT * FROM runs').raw(true).iterate() as Iterable<unknown[]>) {
        batch.push(row);
        if (batch.length === BATCH) await flush();
      }
      if (batch.length > 0) await flush();
      await pool.query('COMMIT');
    });
    source.close();
    // Baseline 2: the server copying the same rows table to table.
    await pool.query('CREATE TABLE runs_again (LIKE runs INCLUDING ALL)');
    const inServer = await timed(() => pool.query('INSERT INTO runs_again SELECT * FROM runs'));
    await pool.end();

    // The app on the copy answers as the app on the source.
    const copy = await startBenchBackend(redis.url, { RUN_WORKERS: 'false', DATABASE_URL: toPostgres });
    apps.push(copy);
    const compared = await compareAnswers(origin, copy, plan.id, ladder.id);

    const rate = (n: number, seconds: number) => Math.round(n / seconds).toLocaleString('en-US');
    printTable(`store copy of ${RUNS.toLocaleString('en-US')} runs (${copiedRows.toLocaleString('en-US')} rows in all tables)`, [
      { what: 'store copy SQLite -> PostgreSQL (copy + verify)', seconds: there.toFixed(2), 'rows/s': rate(copiedRows, there), 'x plain loop': (there / plain).toFixed(2) },
      { what: 'store copy PostgreSQL -> SQLite (copy + verify)', seconds: back.toFixed(2), 'rows/s': rate(copiedRows, back), 'x plain loop': (back / plain).toFixed(2) },
      { what: 'baseline: plain client loop, runs only, no checks', seconds: plain.toFixed(2), 'rows/s': rate(RUNS, plain), 'x plain loop': '1.00' },
      { what: 'baseline: INSERT … SELECT inside PostgreSQL', seconds: inServer.toFixed(2), 'rows/s': rate(RUNS, inServer), 'x plain loop': (inServer / plain).toFixed(2) },
    ]);
    printTable(`The app on the PostgreSQL copy against the app on the SQLite source, at ${RUNS.toLocaleString('en-US')} runs`, compared);
    return compared.every((row) => row.verdict === 'PASS');
  } finally {
    for (const app of apps) await app.close();
    await redis.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  }
}

const READS = [
  '/runs?fields=summary&state=any&offset=0&limit=200',
  '/runs?fields=summary&state=any&offset=5000&limit=100&sort=cost&dir=desc',
  '/runs?fields=summary&state=any&offset=0&limit=100&sort=runtime&model=vendor/model-7',
  '/runs?fields=summary&state=failures&offset=0&limit=100&sort=testCase',
  '/runs?fields=summary&state=any&offset=0&limit=50&q=CASE-3&sort=model&dir=desc',
  '/runs?state=unreviewed&limit=100',
  '/stats/cabinet',
  '/stats/providers',
  '/stats/model-accuracy',
];

type Read = (app: BenchBackend['app']) => Promise<unknown>;

/** Each read's JSON from both apps, equal or not; the matrix and the board read through their services. */
async function compareAnswers(source: BenchBackend, copy: BenchBackend, planId: string, ladderId: string): Promise<Array<Record<string, string>>> {
  const reads: Array<[string, Read]> = [
    ...READS.map((url): [string, Read] => [url, async (app) => {
      const response = await app.inject({ url });
      return { status: response.statusCode, body: response.json() as unknown };
    }]),
    [`coverage matrix, ${COMBOS.length * CASES.length} cells`, async (app) => planMatrix(app.coverage, ACCOUNT, (await app.coverage.plans.get(ACCOUNT, planId))!)],
    ['ladder board, 20 rungs x 20 climbers', async (app) => ladderProgress(app.ladders, ACCOUNT, (await app.ladders.ladders.get(ACCOUNT, ladderId))!)],
  ];
  const rows: Array<Record<string, string>> = [];
  for (const [what, read] of reads) {
    // As JSON text, as a client sees it (dates, undefined fields).
    const [there, here] = [JSON.stringify(await read(source.app)), JSON.stringify(await read(copy.app))];
    const refused = what.startsWith('/') && (JSON.parse(there) as { status: number }).status !== 200;
    rows.push({ read: what, bytes: there.length.toLocaleString('en-US'), verdict: !refused && isDeepStrictEqual(JSON.parse(there), JSON.parse(here)) ? 'PASS' : 'FAIL' });
  }
  return rows;
}
