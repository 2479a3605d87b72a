import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { cellCountStatements, cellsParam, originInFlightStatement } from '../src/coverage/cell-counts.js';
import { gateEvidenceStatement } from '../src/ladders/gate-evidence.js';
import { ladderClimbers } from '../src/ladders/ladder-climbers.js';
import { ladderOrigin } from '../src/ladders/ladder-context.js';
import { ladderProgress } from '../src/ladders/ladder-progress.js';
import { createLadder } from '../src/ladders/manage-ladders.js';
import { ladderCells } from '../src/ladders/measure-ladder.js';
import { ratingRank } from '../src/runs/run-states.js';
import type { ManagedPostgres } from '../src/db/managed-postgres.js';
import { startBenchBackend, type BenchBackend } from './lib/bench-backend.js';
import { benchRedis } from './lib/bench-redis.js';
import { benchEngines, benchPostgres, copiedToPostgres, rawHandle, rawQuery, rawText } from './lib/bench-store.js';
import { machineLine } from './lib/machine.js';
import { seedRuns } from './lib/seed-runs.js';
import { longestStall, ms, printTable, summarize, timePaired, type LatencySummary } from './lib/stats.js';
import { syntheticRunRecord } from './lib/synthetic-run.js';

const RUNS = 100_000;
const RUNGS = 20;
const HARNESSES = ['claude', 'codex', 'cline', 'goose', 'pi'];
const MODELS = 10; // 5 harnesses x 10 models = 50 climbers
const RUNS_PER_CELL = 3;
const TARGET_RATIO = 3;
const ACCOUNT = 'bench-reviewer';

/**
 * Run `i`: three in four land in the ladder's cells (rung x climber), the rest on other cases
 * and versions the board must skip. Climber `c` clears rungs below `c % 21` and breaks on that
 * one, so the board holds climbers at every rung, walled ones and topped out ones.
 */
function record(i: number) {
  const climbers = HARNESSES.length * MODELS;
  const inLadder = Math.floor(i / (climbers * RUNGS)) % 4 !== 3;
  const climber = i % climbers;
  const rung = Math.floor(i / climbers) % RUNGS;
  return {
    rating: inLadder ? (rung < climber % (RUNGS + 1) ? 'great' : 'broken') : null,
    raw: syntheticRunRecord(i, {
      testCaseSlug: inLadder ? `rung-${rung}` : `other-${i % 40}`,
      testCaseVersion: inLadder ? 'v1.0.0' : `v1.${i % 3}.0`,
      harnessSlug: HARNESSES[climber % HARNESSES.length]!,
      modelId: `vendor/model-${Math.floor(climber / HARNESSES.length)}`,
    }, { runTimeSeconds: 600, loaded: i % 50 !== 0, environment: { os: 'linux', containerImage: 'runner:1', authMode: 'api-key' } }),
  };
}

/**
 * `GET /ladders/{id}/progress` for a 20-rung ladder with 50 climbers over 100,000 stored runs
 * (half of them reviewed by the requester): the board as the route builds it, against the
 * statements it needs run directly on the engine's own driver (cell counts, in-flight jobs,
 * gate evidence, the ladder's origin, verdicts and steering), alternated in one run, on each
 * engine `--store` names (default both; the PostgreSQL store is a `store copy` of the SQLite
 * one). PASS within 3x.
 */
export default async function benchLadderProgress(): Promise<boolean> {
  const engines = benchEngines();
  const redis = await benchRedis();
  const sqlite = await startBenchBackend(redis.url, { REDIS_PREFIX: `b${randomUUID().slice(0, 8)}`, RUN_WORKERS: 'false' });
  let cluster: ManagedPostgres | null = null;
  try {
    const { app, db } = sqlite;
    const seedStart = Date.now();
    const review = db.prepare(
      `INSERT INTO run_reviews (run_id, reviewer_id, reviewer, username, writeup, reviewed_at, rating_rank) VALUES (?, ?, 'Bench', 'bench', 'x', ?, ?)`,
    );
    await seedRuns(sqlite.store, RUNS, (i) => record(i).raw);
    for (let i = 0; i < RUNS; i++) {
      const { raw, rating } = record(i);
      // The requester reviewed two runs in three of the ladder's.
      if (rating && i % 3 !== 0) review.run(raw.id, ACCOUNT, raw.finishedAt, ratingRank(rating as 'great' | 'broken'));
    }
    db.exec('ANALYZE');
    console.log(`seeded ${RUNS} runs in ${Date.now() - seedStart} ms`);

    const rows: Array<Record<string, string>> = [];
    // The PostgreSQL store is copied before either side is measured, so both start from the same rows.
    if (engines.includes('postgres')) cluster = await benchPostgres();
    const url = cluster ? await copiedToPostgres(cluster, sqlite.sqliteFile!, 'ladder_progress') : null;
    if (engines.includes('sqlite')) rows.push(...(await measureBoard(sqlite, null)));
    if (url) {
      const postgres = await startBenchBackend(redis.url, { REDIS_PREFIX: `b${randomUUID().slice(0, 8)}`, RUN_WORKERS: 'false', DATABASE_URL: url });
      try {
        rows.push(...(await measureBoard(postgres, url)));
      } finally {
        await postgres.close();
      }
    }
    printTable(`ladder progress, ${RUNGS} rungs x ${HARNESSES.length * MODELS} climbers over ${RUNS} runs (p50; ${machineLine()})`, rows);
    return rows.every((row) => row.verdict === 'PASS');
  } finally {
    await sqlite.close();
    await cluster?.stop();
    await redis.stop();
  }
}

/** A ladder made on `backend`, its board timed against its statements on the engine's own driver. */
async function measureBoard(backend: BenchBackend, databaseUrl: string | null): Promise<Array<Record<string, string>>> {
  const { app, store } = backend;
  const handle = await rawHandle(backend, databaseUrl);
  try {
    const ctx = app.ladders;
    const combos = HARNESSES.flatMap((harness, h) => Array.from({ length: MODELS }, (_, m) => ({ harness, model: `vendor/model-${m}`, h }))).sort((a, b) => a.h - b.h);
    const { id } = await createLadder(ctx, ACCOUNT, {
      name: 'bench', runsPerCell: RUNS_PER_CELL,
      combos: combos.map(({ harness, model }) => ({ harness, model })),
      rungs: Array.from({ length: RUNGS }, (_, r) => ({ slug: `rung-${r}`, version: 'v1.0.0', variant: 'base' })),
    });
    const ladder = (await ctx.ladders.get(ACCOUNT, id))!;
    const board = await ladderProgress(ctx, ACCOUNT, ladder);
    const statuses = board.climbers.reduce<Record<string, number>>((count, c) => ({ ...count, [c.status]: (count[c.status] ?? 0) + 1 }), {});
    console.log(`${store.engine} board: ${board.climbers.length} climbers x ${board.rungs.length} rungs; ${JSON.stringify(statuses)}; runsUnreviewed ${board.runsUnreviewed}`);

    // The statements the board runs, prepared once, with the parameters it passes.
    const cells = cellsParam(ladderCells(ladder, await ladderClimbers(ctx, ladder)));
    const { engine } = store;
    const counts = cellCountStatements(engine, { cells, reviewer: ACCOUNT });
    const evidenceArgs = { cells, reviewer: ACCOUNT, floor: ratingRank('scuffed'), unloadedBroken: 1 } as const;
    const statements = {
      runs: rawQuery(handle, store, counts.runs),
      jobs: rawQuery(handle, store, counts.jobs),
      origin: rawQuery(handle, store, originInFlightStatement(engine, ladderOrigin(id))),
      evidence: rawQuery(handle, store, gateEvidenceStatement(engine, evidenceArgs)),
      ladder: rawText(handle, 'SELECT * FROM ladders WHERE id = ? AND account_id = ?', [id, ACCOUNT]),
      rungs: rawText(handle, 'SELECT * FROM ladder_rungs WHERE ladder_id = ? ORDER BY position', [id]),
      steering: rawText(handle, 'SELECT * FROM ladder_climbers WHERE ladder_id = ?', [id]),
      verdicts: rawText(handle, 'SELECT * FROM ladder_verdicts WHERE ladder_id = ?', [id]),
    };
    console.log(`${engine} gate evidence plan: ${await statements.evidence.plan()}`);
    const raw = async () => {
      for (const statement of Object.values(statements)) await statement.run();
    };
    const progress = async () => ladderProgress(ctx, ACCOUNT, (await ctx.ladders.get(ACCOUNT, id))!);
    const serialized = async () => JSON.stringify(await progress());

    // Where the raw time goes, statement by statement.
    for (const name of ['runs', 'evidence', 'jobs'] as const) {
      const [time] = await timePaired(10, 2, () => statements[name].run(), async () => {});
      console.log(`  ${engine} ${name === 'evidence' ? 'gate evidence' : `cell counts: ${name}`}: p50 ${ms(time.p50)}`);
    }

    const [boardTime, rawTime] = await timePaired(20, 3, progress, raw);
    const [jsonTime, rawAgain] = await timePaired(20, 3, serialized, raw);
    // How long one board holds the event loop, which claims and every other request share.
    const holds: number[] = [];
    for (let i = 0; i < 5; i++) holds.push(await longestStall(progress));
    const hold = summarize(holds);
    return [
      row(engine, 'board (ladderProgress)', boardTime, rawTime),
      row(engine, 'board + JSON text', jsonTime, rawAgain),
      {
        engine, measure: 'board: longest hold of the event loop', board: ms(hold.p50), raw: ms(rawTime.p50),
        ratio: (hold.p50 / rawTime.p50).toFixed(2), verdict: hold.p50 <= rawTime.p50 / 5 ? 'PASS' : 'FAIL',
      },
    ];
  } finally {
    await handle.close();
  }
}

function row(engine: string, measure: string, board: LatencySummary, raw: LatencySummary) {
  const ratio = board.p50 / raw.p50;
  return { engine, measure, board: ms(board.p50), raw: ms(raw.p50), ratio: ratio.toFixed(2), verdict: ratio <= TARGET_RATIO ? 'PASS' : 'FAIL' };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchLadderProgress();
