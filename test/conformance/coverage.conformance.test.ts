/**
 * Coverage plans answer as the original system does on the same records (open-points.md,
 * "Third round", Coverage and ladders). Each case names the original's rule it follows
 * (TheClockwyrks/TheTestCabinet, crates/backend) and writes down the numbers that rule gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_POOL_SIZE } from '../../src/db/open-store.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const MODELS = ['vendor/x', 'vendor/y', 'vendor/root', 'vendor/alpha', 'vendor/beta'];
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let token: string;

beforeAll(async () => {
  backend = await startTestBackend({}, { pricedModels: MODELS });
  // Cells count globally, so each case below covers slugs of its own.
  await seedCatalog(backend.store, backend.dataDir, ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'q1', 'h1', 'h2', 'g1', 'g2'].map((slug) => ({ slug, version: 'v1.0.0', domains: ['play'] })));
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  token = (await backend.auth.register('conformer')).token;
});
afterAll(async () => {
  await backend?.close();
});

const pin = (slug: string) => ({ slug, version: 'v1.0.0', variant: 'base' });
async function plan(body: object) {
  const created = await http.post('/coverage-plans', token, { name: 'p', runsPerCell: 1, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}
const topUp = async (id: string) => (await http.post(`/coverage-plans/${id}/topup`, token)).body;
const matrix = async (id: string) => (await http.get(`/coverage-plans/${id}/coverage`, token)).body;
const jobsOf = (id: string) => backend.store.db.selectFrom('jobs').select('model_id as model').where('origin', '=', `plan:${id}`).orderBy('seq').execute();

describe('the top-up answer (coverage.rs plan_top_up_locked, TopUpResult)', () => {
  it('names the launched cells and lists every unlaunchable cell that misses runs, even at a bound of 0', async () => {
    const id = await plan({
      runsPerCell: 2, combos: [{ harness: 'claude', model: 'vendor/x' }, { harness: 'claude', model: 'vendor/uncatalogued' }], cases: [pin('c1')],
      schedule: { bufferTarget: { kind: 'bounded', runs: 0 } },
    });
    const refused = 'The model catalog has no entry for vendor/uncatalogued; add it to the catalog before launching it.';
    expect(await topUp(id)).toEqual({
      bufferTarget: { kind: 'bounded', runs: 0 }, outstanding: 0, enqueued: 0, cells: [],
      unlaunchable: [{ slug: 'c1', version: 'v1.0.0', variant: 'base', engine: 'none', harness: 'claude', model: 'vendor/uncatalogued', reason: refused }],
    });
    await http.put(`/coverage-plans/${id}/schedule`, token, { bufferTarget: { kind: 'unbounded' } });
    const answer = await topUp(id);
    expect(answer).toEqual({
      bufferTarget: { kind: 'unbounded' }, outstanding: 0, enqueued: 2,
      cells: [{ slug: 'c1', version: 'v1.0.0', variant: 'base', engine: 'none', harness: 'claude', model: 'vendor/x', runs: 2, jobIds: [expect.any(String), expect.any(String)] }],
      unlaunchable: [expect.objectContaining({ model: 'vendor/uncatalogued', reason: refused })],
    });
    // A skipped top-up never ran: no occupancy is reported.
    await http.post(`/coverage-plans/${id}/pause`, token, { paused: true });
    expect(await topUp(id)).toEqual({ bufferTarget: { kind: 'unbounded' }, enqueued: 0, cells: [], unlaunchable: [], skipped: 'paused' });
  });
});

describe('occupancy (schedule.rs outstanding_across over the plan cells’ CellDemand)', () => {
  it('counts the cells’ in-flight jobs whatever launched them, plus their unreviewed runs', async () => {
    const id = await plan({ runsPerCell: 3, combos: [{ harness: 'claude', model: 'vendor/x' }, { harness: 'claude', model: 'vendor/y' }], cases: [pin('c2')], schedule: { bufferTarget: { kind: 'bounded', runs: 4 } } });
    // A hand launch (no origin) in the first cell, and one completed unreviewed run in the second.
    expect((await http.post('/jobs', token, { testCase: 'c2', version: 'v1.0.0', variant: 'base', harness: 'claude', model: 'vendor/x' })).status).toBe(202);
    await seedRun(backend, runRecord({ slug: 'c2', version: 'v1.0.0', harness: 'claude', model: 'vendor/y' }));
    // outstanding = 1 in flight + 1 unreviewed = 2 < 4: the first cell's missing 2 launch (4),
    // and the second cell waits.
    const answer = await topUp(id);
    expect(answer).toMatchObject({ outstanding: 2, enqueued: 2 });
    expect(answer.cells.map((cell: { model: string; runs: number }) => [cell.model, cell.runs])).toEqual([['vendor/x', 2]]);
    expect((await matrix(id)).runsOutstanding).toBe(4);
  });

  it('counts a cell two members name once, and keeps the second member with the original’s reason', async () => {
    // Same harness and model, two providers: two members (harness, model, provider), one cell.
    const id = await plan({ runsPerCell: 5, combos: [{ harness: 'claude', model: 'vendor/x', provider: 'acme' }, { harness: 'claude', model: 'vendor/x' }], cases: [pin('c3')] });
    for (let i = 0; i < 2; i++) await seedRun(backend, runRecord({ slug: 'c3', version: 'v1.0.0', harness: 'claude', model: 'vendor/x' }));
    const cells = (await matrix(id)).cells as Array<{ provider: string | null; completed: number; unlaunchable: string | null }>;
    expect(cells.map((cell) => [cell.provider, cell.completed, cell.unlaunchable])).toEqual([
      ['acme', 2, null],
      [null, 2, 'another member of this plan already asks for exactly these runs (same case, same launch model, and for a gg member the same configuration and agents)'],
    ]);
    // 2 unreviewed runs, once; the cell launches its missing 3 once.
    const answer = await topUp(id);
    expect(answer).toMatchObject({ outstanding: 2, enqueued: 3 });
    expect((await matrix(id)).runsOutstanding).toBe(5);
  });
});

describe('gg member cells (coverage.rs cell_key, PlanMember::cell_identity, resolve_combos)', () => {
  it('makes two bindings of one configuration two cells, and one binding written twice one', async () => {
    const config = (await http.post('/gg/configs', token, {
      name: 'Pair', capabilitySet: { agents: [{ name: 'root', modelId: 'vendor/root', capabilities: [] }, { name: 'helper', modelId: 'vendor/x', capabilities: [] }] },
    })).body;
    expect(config.id).toEqual(expect.any(String));
    const gg = `saved:${config.id}`;
    const id = await plan({
      runsPerCell: 1, cases: [pin('c4')], schedule: { bufferTarget: { kind: 'unbounded' } },
      combos: [
        { ggConfigId: gg, ggSlotModels: { helper: 'vendor/alpha' } },
        { ggConfigId: gg, ggSlotModels: { helper: 'vendor/beta' } },
        // Binds what the configuration already binds: another member, the same runs.
        { ggConfigId: gg, ggSlotModels: {} },
        { ggConfigId: gg, ggSlotModels: { helper: 'vendor/x' } },
      ],
    });
    const before = (await matrix(id)).cells as Array<{ ggSlotModels: object; unlaunchable: string | null }>;
    expect(before.map((cell) => [cell.ggSlotModels, cell.unlaunchable === null])).toEqual([
      [{ helper: 'vendor/alpha' }, true], [{ helper: 'vendor/beta' }, true], [{}, true], [{ helper: 'vendor/x' }, false],
    ]);
    const answer = await topUp(id);
    expect(answer.enqueued).toBe(3);
    expect(answer.cells.map((cell: { ggSlotModels?: object; model: string }) => [cell.model, cell.ggSlotModels ?? null])).toEqual([
      ['vendor/root', { helper: 'vendor/alpha' }], ['vendor/root', { helper: 'vendor/beta' }], ['vendor/root', null],
    ]);
    expect((await matrix(id)).cells.map((cell: { inFlight: number }) => cell.inFlight)).toEqual([1, 1, 1, 1]);
  });
});

describe('gg runs without a job’s bindings (entities run.rs gg_models, lifted from record.subject.gg_capability_set; coverage.rs cell_key, in_gg_cell)', () => {
  it('counts a run in the cell of the bindings its record carries, and one whose record carries none in no binding’s cell', async () => {
    const config = (await http.post('/gg/configs', token, {
      name: 'Trio', capabilitySet: { agents: [{ name: 'root', modelId: 'vendor/root', capabilities: [] }, { name: 'helper', modelId: 'vendor/x', capabilities: [] }] },
    })).body;
    const id = await plan({
      runsPerCell: 2, cases: [pin('g1')], schedule: { bufferTarget: { kind: 'unbounded' } },
      combos: [{ ggConfigId: `saved:${config.id}`, ggSlotModels: { helper: 'vendor/alpha' } }, { ggConfigId: `saved:${config.id}`, ggSlotModels: { helper: 'vendor/beta' } }],
    });
    // Hand-ingested gg runs: no job of ours, so the record is all there is to read.
    const ggRun = async (subject: object) => {
      const record = runRecord({ slug: 'g1', version: 'v1.0.0', harness: 'gg', model: 'vendor/root' });
      Object.assign(record.subject as object, subject);
      await seedRun(backend, record);
      return String(record.id);
    };
    const agents = (helper: string) => [{ name: 'root', modelId: 'vendor/root', capabilities: [] }, { name: 'helper', modelId: helper, capabilities: [] }];
    const alpha = await ggRun({ ggConfigId: config.id, ggCapabilitySet: { agents: agents('vendor/alpha') } });
    // The older set form: slot `primary` is the root agent.
    const beta = await ggRun({ ggConfigId: `saved:${config.id}`, ggCapabilitySet: { slots: [{ slot: 'primary', modelId: 'vendor/root' }, { slot: 'helper', modelId: 'vendor/beta' }] } });
    // No set: its gg_models is NULL, the empty segment, which no gg member's cell carries.
    await ggRun({ ggConfigId: config.id });
    // The original's drivers name the configuration in the set itself (`presetId`).
    const driven = await ggRun({ ggCapabilitySet: { preset: 'Trio', presetId: config.id, agents: agents('vendor/alpha') } });

    const cells = (await matrix(id)).cells as Array<{ ggSlotModels: object; completed: number; unreviewed: number; remaining: number }>;
    expect(cells.map((cell) => [cell.ggSlotModels, cell.completed, cell.unreviewed, cell.remaining])).toEqual([
      [{ helper: 'vendor/alpha' }, 2, 2, 0],
      [{ helper: 'vendor/beta' }, 1, 1, 1],
    ]);
    const queue = (await http.get(`/coverage-plans/${id}/queue`, token)).body as { runs: Array<{ runId: string; ggSlotModels: object }> };
    expect(queue.runs.map((run) => [run.runId, run.ggSlotModels])).toEqual([
      [alpha, { helper: 'vendor/alpha' }], [driven, { helper: 'vendor/alpha' }], [beta, { helper: 'vendor/beta' }],
    ]);
    const answer = await topUp(id);
    expect(answer).toMatchObject({ outstanding: 3, enqueued: 1 });
    expect(answer.cells.map((cell: { ggSlotModels: object; runs: number }) => [cell.ggSlotModels, cell.runs])).toEqual([[{ helper: 'vendor/beta' }, 1]]);
  });
});

describe('harness parallelism first (schedule.rs top_up: a first pass over cells whose harness has room, HarnessCapacity::has_room)', () => {
  it('launches cells whose harness has a free slot before the others, and the deferred ones in a second pass', async () => {
    const capped = { harness: 'codex', model: 'vendor/x' };
    const cappedToo = { harness: 'codex', model: 'vendor/y' };
    const free = { harness: 'claude', model: 'vendor/alpha' };
    const launched = (answer: { cells: Array<{ harness: string; model: string; runs: number }> }) => answer.cells.map((c) => `${c.harness} ${c.model} ${c.runs}`);
    expect((await http.put('/harness-config/codex', token, { maxParallelism: 1 })).status).toBe(200);
    try {
      // Two runs a cell, a bound of 3, codex capped at 1 with nothing in flight. Pass one: codex
      // x has room (0 < 1) and takes it (2 in flight), codex y has none (2 >= 1) and waits,
      // claude is uncapped; the occupancy is then 4 >= 3, so pass two launches nothing.
      const bounded = await plan({ runsPerCell: 2, combos: [capped, cappedToo, free], cases: [pin('h1')], schedule: { bufferTarget: { kind: 'bounded', runs: 3 } } });
      const first = await topUp(bounded);
      expect(first).toMatchObject({ outstanding: 0, enqueued: 4 });
      expect(launched(first)).toEqual(['codex vendor/x 2', 'claude vendor/alpha 2']);
      // Unbounded, on another case: the cap is global, so codex's 2 jobs in flight leave it no
      // room. Pass one launches claude only; pass two the codex cells in plan order.
      const unbounded = await plan({ runsPerCell: 2, combos: [capped, cappedToo, free], cases: [pin('h2')], schedule: { bufferTarget: { kind: 'unbounded' } } });
      expect(launched(await topUp(unbounded))).toEqual(['claude vendor/alpha 2', 'codex vendor/x 2', 'codex vendor/y 2']);
      expect((await jobsOf(unbounded)).map((job) => job.model)).toEqual(['vendor/alpha', 'vendor/alpha', 'vendor/x', 'vendor/x', 'vendor/y', 'vendor/y']);
    } finally {
      await http.put('/harness-config/codex', token, { maxParallelism: null });
    }
  });
});

describe('provider-routed harnesses (core model_id.rs launch_model_id; coverage.rs MatrixCtx::demand)', () => {
  it('launches openrouter/<model> for opencode and kilo, and counts runs recorded either way', async () => {
    const id = await plan({
      runsPerCell: 3, cases: [pin('c5')], schedule: { bufferTarget: { kind: 'unbounded' } },
      combos: [{ harness: 'opencode', model: 'vendor/x' }, { harness: 'kilo', model: 'vendor/x', provider: 'openrouter' }, { harness: 'opencode', model: 'vendor/y', provider: 'acme' }],
    });
    await seedRun(backend, runRecord({ slug: 'c5', version: 'v1.0.0', harness: 'opencode', model: 'openrouter/vendor/x' }));
    await seedRun(backend, runRecord({ slug: 'c5', version: 'v1.0.0', harness: 'opencode', model: 'vendor/x' }));
    expect((await matrix(id)).cells.map((cell: { completed: number; remaining: number }) => [cell.completed, cell.remaining])).toEqual([[2, 1], [0, 3], [0, 3]]);
    const answer = await topUp(id);
    expect(answer.cells.map((cell: { harness: string; model: string; runs: number }) => [cell.harness, cell.model, cell.runs])).toEqual([
      ['opencode', 'vendor/x', 1], ['kilo', 'vendor/x', 3], ['opencode', 'vendor/y', 3],
    ]);
    // Another provider launches the model as written.
    expect((await jobsOf(id)).map((job) => job.model)).toEqual([
      'openrouter/vendor/x', 'openrouter/vendor/x', 'openrouter/vendor/x', 'openrouter/vendor/x', 'vendor/y', 'vendor/y', 'vendor/y',
    ]);
    // The next top-up finds every cell full.
    expect(await topUp(id)).toMatchObject({ outstanding: 9, enqueued: 0 });
  });
});

describe('the buffer target (coverage.rs DEFAULT_BUFFER_TARGET, MAX_BUFFER_TARGET)', () => {
  it('defaults to a bound of 10 and refuses a bound above 500 naming the field', async () => {
    const fresh = (await backend.auth.register('fresh')).token;
    expect((await http.get('/coverage-settings', fresh)).body).toEqual({ bufferTarget: { kind: 'bounded', runs: 10 }, isDefault: true });
    // 3 runs a cell: 3, 6, 9 stay below 10, the fourth cell crosses to 12 and the fifth waits.
    const created = await http.post('/coverage-plans', fresh, {
      name: 'default', runsPerCell: 3, combos: ['vendor/x', 'vendor/y', 'vendor/root', 'vendor/alpha', 'vendor/beta'].map((model) => ({ harness: 'pi', model })), cases: [pin('c6')],
    });
    const answer = (await http.post(`/coverage-plans/${created.body.id}/topup`, fresh)).body;
    expect(answer).toMatchObject({ bufferTarget: { kind: 'bounded', runs: 10 }, outstanding: 0, enqueued: 12 });
    for (const [path, body, field] of [
      ['/coverage-settings', { bufferTarget: { kind: 'bounded', runs: 501 } }, 'body.bufferTarget.runs'],
      [`/coverage-plans/${created.body.id}/schedule`, { bufferTarget: { kind: 'bounded', runs: 501 } }, 'body.bufferTarget.runs'],
    ] as const) {
      const refused = await http.put(path, fresh, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toContain(field);
    }
    expect((await http.put('/coverage-settings', fresh, { bufferTarget: { kind: 'bounded', runs: 500 } })).status).toBe(200);
  });
});

describe('PUT …/schedule (coverage.rs set_plan_schedule, as the decision reads it)', () => {
  it('inherits the buffer target when the body leaves it out, and keeps the fields it leaves out otherwise', async () => {
    const id = await plan({ combos: [{ harness: 'claude', model: 'vendor/x' }], cases: [pin('c7')], schedule: { outerAxis: 'combination', autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 3 } } });
    const put = await http.put(`/coverage-plans/${id}/schedule`, token, { paused: true });
    expect(put.body).toEqual({ outerAxis: 'combination', paused: true, autoTopUp: true, bufferTarget: null });
    expect((await http.get(`/coverage-plans/${id}/schedule`, token)).body).toEqual(put.body);
    expect((await http.put(`/coverage-plans/${id}/schedule`, token, { bufferTarget: { kind: 'unbounded' } })).body)
      .toEqual({ outerAxis: 'combination', paused: true, autoTopUp: true, bufferTarget: { kind: 'unbounded' } });
  });
});

describe('GET /coverage-plans/summary (coverage.rs plans_summary, CoveragePlanSummary)', () => {
  it('answers a bare array of the original’s fields', async () => {
    const other = (await backend.auth.register('summarized')).token;
    const created = (await http.post('/coverage-plans', other, { name: 'S', runsPerCell: 2, combos: [{ harness: 'claude', model: 'vendor/x' }, { harness: 'pi', model: 'vendor/x' }], cases: [pin('c8')] })).body;
    await seedRun(backend, runRecord({ slug: 'c8', version: 'v1.0.0', harness: 'claude', model: 'vendor/x' }));
    expect((await http.get('/coverage-plans/summary', other)).body).toEqual([
      { id: created.id, name: 'S', runsPerCell: 2, cellsSatisfied: 0, cellsTotal: 2, runsMissing: 3, runsUnreviewed: 1, paused: false, autoTopUp: false },
    ]);
  });
});

describe('the review queue (coverage.rs collect_queue, CoverageQueueEntry, MAX_QUEUE_RUNS)', () => {
  it('lists each run once in the entry shape, at most 600, with truncated', async () => {
    const id = await plan({ runsPerCell: 1, combos: [{ harness: 'claude', model: 'vendor/x' }, { harness: 'claude', model: 'vendor/x', provider: 'acme' }], cases: [pin('q1')] });
    const first = runRecord({ slug: 'q1', version: 'v1.0.0', harness: 'claude', model: 'vendor/x', finishedAt: '2020-01-01T00:00:00.000Z' });
    await seedRun(backend, first);
    // The second member names the same cell: its run is listed once.
    expect((await http.get(`/coverage-plans/${id}/queue`, token)).body).toEqual({
      runs: [{ runId: first.id, slug: 'q1', version: 'v1.0.0', variant: 'base', engine: 'none', harness: 'claude', model: 'vendor/x', finishedAt: '2020-01-01T00:00:00.000Z' }],
      truncated: false,
    });
    const records = Array.from({ length: 600 }, () => runRecord({ slug: 'q1', version: 'v1.0.0', harness: 'claude', model: 'vendor/x' }));
    // As many at a time as the PostgreSQL pool has connections: 600 at once would wait for one
    // longer than its connect timeout, which bounds that wait too (STORE_CONNECT_TIMEOUT_MS).
    for (let i = 0; i < records.length; i += STORE_POOL_SIZE) {
      await Promise.all(records.slice(i, i + STORE_POOL_SIZE).map(async (record) => (await backend.app.runs.records.store(`job-${String(record.id)}`, record, [])).graded));
    }
    const full = (await http.get(`/coverage-plans/${id}/queue`, token)).body;
    expect(full.runs).toHaveLength(600);
    expect(full.truncated).toBe(true);
    // Oldest first within the cell.
    expect(full.runs[0].runId).toBe(first.id);
  });
});
