import { beforeAll, describe, expect, it } from 'vitest';
import { cellCountQueries, cellCounts, cellsParam } from '../../src/coverage/cell-counts.js';
import type { ResolvedCombination } from '../../src/coverage/combinations.js';
import type { CoverageCell } from '../../src/coverage/coverage-cells.js';
import type { BackendStore } from '../../src/db/dialect.js';
import { gateEvidenceQuery } from '../../src/ladders/gate-evidence.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';

const stores = engineStores();
const AT = '2026-11-27T10:00:00.000Z';
const at = (minute: number) => `2026-11-27T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** A cell with the fields the counting reads. */
function cell(pin: CoverageCell['pin'], combination: Pick<ResolvedCombination, 'harness' | 'runModels' | 'ggConfigRowId' | 'ggModels'>): CoverageCell {
  return { pin, combination: combination as ResolvedCombination, desired: 5 };
}

const ROUTED = cell({ slug: 'kart', version: 'v1.0.0', variant: 'base', engine: 'simple-2d' },
  { harness: 'claude', runModels: ['openrouter/vendor/x', 'vendor/x'], ggConfigRowId: null, ggModels: null });
const GG = cell({ slug: 'kart', version: 'v1.0.0', variant: 'base', engine: 'none' },
  { harness: 'gg', runModels: ['vendor/root', 'vendor/root'], ggConfigRowId: 'cfg1', ggModels: 'root=vendor/root' });
const EMPTY = cell({ slug: 'pong', version: 'v1.0.0', variant: 'base', engine: 'none' },
  { harness: 'claude', runModels: ['vendor/x', 'vendor/x'], ggConfigRowId: null, ggModels: null });
const CELLS = [ROUTED, GG, EMPTY];

type RunSeed = { id: string; model?: string; harness?: string; engine?: string; state?: string; decodeError?: string; finishedAt?: string | null;
  testType?: string; jobId?: string; ggConfigId?: string; ggModels?: string; loaded?: 0 | 1; validatorRank?: number };

async function seed(store: BackendStore) {
  const run = (r: RunSeed) => ({
    id: r.id, job_id: r.jobId ?? null, record_format: 1, decode_error: r.decodeError ?? null, state: r.state ?? 'completed',
    finished_at: r.finishedAt === undefined ? AT : r.finishedAt, test_case_slug: 'kart', test_case_version: 'v1.0.0', variant: 'base',
    harness: r.harness ?? 'claude', model_id: r.model ?? 'vendor/x', engine: r.engine ?? 'simple-2d', test_type: r.testType ?? 'end-to-end',
    gg_config_id: r.ggConfigId ?? null, gg_models: r.ggModels ?? null, validation_loaded: r.loaded ?? 1, validator_rating_rank: r.validatorRank ?? null,
    created_at: AT, updated_at: AT, record: '{}',
  });
  const job = (id: string, fields: { state?: string; finished?: boolean; harness?: string; model?: string; engine?: string | null; origin?: string;
    ggConfigId?: string; ggModels?: string }) => ({
    id, account_id: 'alice', origin: fields.origin ?? null, test_case_slug: 'kart', test_case_version: 'v1.0.0', variant: 'base',
    harness_slug: fields.harness ?? 'claude', model_id: fields.model ?? 'openrouter/vendor/x', engine: fields.engine === undefined ? 'simple-2d' : fields.engine,
    test_type: 'end-to-end', gg_config_id: fields.ggConfigId ?? null, gg_models: fields.ggModels ?? null, request: '{}',
    state: fields.state ?? 'queued', enqueued_at: AT, finished_at: fields.finished ? AT : null,
  });
  await store.db.insertInto('jobs').values([
    job('j1', { state: 'pending', origin: 'plan:p1' }),
    job('j2', {}),
    job('j3', { state: 'succeeded', finished: true }),
    job('j-engine', { engine: null }),
    job('j-gg', { harness: 'gg', model: 'vendor/root', engine: null, ggConfigId: 'cfg1', ggModels: 'root=vendor/root' }),
    job('j-gg-done', { state: 'succeeded', finished: true, harness: 'gg', model: 'vendor/root', engine: null, ggConfigId: 'cfg1', ggModels: 'root=vendor/root' }),
  ]).execute();
  const gg = { harness: 'gg', model: 'vendor/root', engine: 'none' };
  await store.db.insertInto('runs').values([
    run({ id: 'r1', finishedAt: at(1), loaded: 0 }),
    run({ id: 'r2', model: 'openrouter/vendor/x', finishedAt: at(2) }),
    run({ id: 'r3', state: 'timed_out' }),
    run({ id: 'r4', decodeError: 'bad' }),
    run({ id: 'r5', testType: 'performance', validatorRank: 2 }),
    run({ id: 'r6', finishedAt: null }),
    run({ id: 'r7', engine: 'none' }),
    // gg: the job's binding, else the record's (`saved:` stripped); a run that says no models counts in no binding's cell.
    run({ id: 'g1', ...gg, jobId: 'j-gg-done', finishedAt: at(5) }),
    run({ id: 'g2', ...gg, ggConfigId: 'saved:cfg1', ggModels: 'root=vendor/root', finishedAt: at(4) }),
    run({ id: 'g3', ...gg, ggConfigId: 'saved:cfg1', ggModels: 'root=vendor/other' }),
    run({ id: 'g4', ...gg, ggConfigId: 'cfg2', ggModels: 'root=vendor/root' }),
    run({ id: 'g5', ...gg, ggConfigId: 'saved:cfg1' }),
  ]).execute();
  const review = (runId: string, reviewerId: string, rank: number) =>
    ({ run_id: runId, reviewer_id: reviewerId, reviewer: reviewerId, username: reviewerId, writeup: '', reviewed_at: AT, rating_rank: rank });
  await store.db.insertInto('run_reviews').values([review('r2', 'alice', 3), review('r1', 'bob', 3)]).execute();
  await store.db.insertInto('harness_config').values([
    { slug: 'claude', max_parallelism: 2, updated_at: AT }, { slug: 'codex', max_parallelism: null, updated_at: AT }, { slug: 'idle', max_parallelism: 1, updated_at: AT },
  ]).execute();
}

describe.each(ENGINES)('cell counting on %s', (engine) => {
  let store: BackendStore;
  let counter: ReturnType<typeof cellCounts>;
  beforeAll(async () => {
    store = await stores.fresh(engine);
    await seed(store);
    counter = cellCounts(store, cellCountQueries(store));
  });

  it('counts completed, unreviewed, in-flight and pending runs per cell, matching gg cells on the job’s or the record’s binding', async () => {
    expect(await counter.count(CELLS, 'alice')).toEqual([
      // r1, r2 (routed id), r5 (machine-graded: never waits on a review), r6; r2 alice reviewed. j1 pending, j2 queued.
      { completed: 4, unreviewed: 2, inFlight: 2, pending: 1 },
      // g1 by its job's binding, g2 by its own; j-gg in flight.
      { completed: 2, unreviewed: 2, inFlight: 1, pending: 0 },
      { completed: 0, unreviewed: 0, inFlight: 0, pending: 0 },
    ]);
    expect(await counter.count([], 'alice')).toEqual([]);
  });

  it('reads the gate’s evidence: the requester’s rating, else the validators’, an unloaded build broken when the gate says so', async () => {
    const evidence = gateEvidenceQuery(store);
    const cells = cellsParam(CELLS);
    expect(await evidence({ cells, reviewer: 'alice', floor: 2, unloadedBroken: 1 })).toEqual([
      { cell: 0, completed: 4, judged: 3, passing: 2, unloadedUnreviewed: 1 },
      { cell: 1, completed: 2, judged: 0, passing: 0, unloadedUnreviewed: 0 },
    ]);
    expect(await evidence({ cells, reviewer: 'alice', floor: 2, unloadedBroken: 0 })).toEqual([
      { cell: 0, completed: 4, judged: 2, passing: 2, unloadedUnreviewed: 0 },
      { cell: 1, completed: 2, judged: 0, passing: 0, unloadedUnreviewed: 0 },
    ]);
  });

  it('queues unreviewed runs cell by cell, a run with no finish time first, and stops at the limit', async () => {
    const ids = (rows: Array<{ cell: number; run: { runId: string } }>) => rows.map(({ cell, run }) => `${cell}:${run.runId}`);
    expect(ids(await counter.unreviewedRuns(CELLS, 'alice', 10))).toEqual(['0:r6', '0:r1', '1:g2', '1:g1']);
    expect(ids(await counter.unreviewedRuns(CELLS, 'alice', 3))).toEqual(['0:r6', '0:r1', '1:g2']);
    expect(ids(await counter.unreviewedRuns(CELLS, 'alice', 10, true))).toEqual(['0:r6', '1:g2', '1:g1']);
    expect((await counter.unreviewedRuns([ROUTED], 'alice', 1))[0]!.run).toEqual({
      runId: 'r6', slug: 'kart', version: 'v1.0.0', variant: 'base', engine: 'simple-2d', harness: 'claude', model: 'vendor/x', finishedAt: null,
    });
  });

  it('lets other work run between the cells of a queue it walks, even on a store that answers synchronously', async () => {
    const order: string[] = [];
    const walk = counter.unreviewedRuns(CELLS, 'alice', 10).then(() => order.push('queue read'));
    setImmediate(() => order.push('other work'));
    await walk;
    expect(order).toEqual(['other work', 'queue read']);
  });

  it('answers each capped harness’s load, an origin’s jobs in flight and a run’s cell identity', async () => {
    expect(await counter.harnessLoad()).toEqual(new Map([['claude', { cap: 2, inFlight: 3 }], ['idle', { cap: 1, inFlight: 0 }]]));
    expect(await counter.inFlightOfOrigin('plan:p1')).toBe(1);
    expect(await counter.inFlightOfOrigin('plan:none')).toBe(0);
    expect(await counter.inFlightIdsOfOrigin('plan:p1')).toEqual(['j1']);
    expect(await counter.runIdentity('g2')).toEqual({
      slug: 'kart', version: 'v1.0.0', variant: 'base', engine: 'none', harness: 'gg', model: 'vendor/root', ggConfigRowId: 'cfg1', ggModels: 'root=vendor/root', completed: true,
    });
    expect(await counter.runIdentity('g1')).toMatchObject({ ggConfigRowId: 'cfg1', ggModels: 'root=vendor/root' });
    expect(await counter.runIdentity('r3')).toMatchObject({ ggConfigRowId: null, ggModels: null, completed: false });
    expect(await counter.runIdentity('missing')).toBeNull();
  });
});
