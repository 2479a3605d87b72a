/**
 * Ladders answer as the original system does on the same records (open-points.md, "Third
 * round", Coverage and ladders). Each case names the original's rule it follows
 * (TheClockwyrks/TheTestCabinet, crates/backend/src/api/ladders.rs unless said otherwise) and
 * writes down the numbers that rule gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const X = { harness: 'claude', model: 'vendor/x' };
const Y = { harness: 'claude', model: 'vendor/y' };
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let token: string;

beforeAll(async () => {
  backend = await startTestBackend({}, { pricedModels: [X.model, Y.model] });
  // Cells count globally, so each case below climbs slugs of its own.
  await seedCatalog(backend.store, backend.dataDir, [
    ...['b1', 'v1', 'w1', 's1', 'o1', 'h1', 'p1'].map((slug) => ({ slug, version: 'v1.0.0', domains: ['play'] })),
    { slug: 'v2', version: 'v1.0.0', domains: ['play'] },
    { slug: 'e1', version: 'v1.0.0', engines: ['simple-2d'], domains: ['play'] },
  ]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  token = (await backend.auth.register('climber')).token;
});
afterAll(async () => {
  await backend?.close();
});

const rung = (slug: string, extra: object = {}) => ({ slug, version: 'v1.0.0', variant: 'base', ...extra });
async function ladder(body: object) {
  const created = await http.post('/ladders', token, { name: 'l', runsPerCell: 1, combos: [X], schedule: { paused: false, bufferTarget: { kind: 'unbounded' } }, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; runsPerCell: number; gate: { threshold: { runs: number } }; rungs: Array<{ id: string; runs: number | null }> };
}
const progress = async (id: string) => (await http.get(`/ladders/${id}/progress`, token)).body;
/** A completed run of `combo` on the case, stored and reviewed by the requester when `rating` is given. */
async function ran(slug: string, combo: { harness: string; model: string }, rating?: string) {
  const record = runRecord({ slug, version: 'v1.0.0', ...combo });
  await seedRun(backend, record);
  if (rating) expect((await http.post(`/runs/${String(record.id)}/reviews`, token, { ratings: [{ domain: 'play', rating }], writeup: 'Seen.' })).status).toBe(200);
  return String(record.id);
}

describe('ladder bounds (ladder_from_input, MAX_LADDER_RUNGS; coverage.rs clamp_runs_per_cell; sanitize_gate)', () => {
  it('needs 1 to 50 rungs, reads a target of 0 as 1 and refuses one above 100 naming the field', async () => {
    for (const [body, field] of [
      [{ rungs: [] }, 'body.rungs'],
      [{ rungs: Array.from({ length: 51 }, () => rung('b1')) }, 'body.rungs'],
      [{ rungs: [rung('b1')], runsPerCell: 101 }, 'body.runsPerCell'],
      [{ rungs: [rung('b1', { runs: 101 })] }, 'runs'],
      [{ rungs: [rung('b1')], gate: { floor: 'scuffed', threshold: { kind: 'count', runs: 101 } } }, 'body.gate.threshold'],
    ] as const) {
      const refused = await http.post('/ladders', token, { name: 'bad', runsPerCell: 1, combos: [X], ...body });
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(refused.body.error.message).toContain(field);
    }
    const zero = await ladder({ runsPerCell: 0, rungs: [rung('b1', { runs: 0 }), rung('b1')], gate: { floor: 'scuffed', threshold: { kind: 'count', runs: 0 } } });
    expect([zero.runsPerCell, zero.rungs.map((r) => r.runs), zero.gate.threshold.runs]).toEqual([1, [1, null], 1]);
    const fifty = await ladder({ rungs: Array.from({ length: 50 }, () => rung('b1')) });
    expect(fifty.rungs).toHaveLength(50);
    // The buffer bound, bare or tagged, is at most 500 (coverage.rs MAX_BUFFER_TARGET).
    for (const bufferTarget of [501, { kind: 'bounded', runs: 501 }]) {
      const refused = await http.put(`/ladders/${fifty.id}/schedule`, token, { bufferTarget });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toContain('body.bufferTarget.runs');
    }
    expect((await http.put(`/ladders/${fifty.id}/schedule`, token, { bufferTarget: 500 })).body.bufferTarget).toEqual({ kind: 'bounded', runs: 500 });
  });
});

describe('verdict keys (walk_climb: a verdict at the rung’s pin governs; keyed by rung, case and decided version)', () => {
  it('keeps a verdict through a reorder and an engine re-pin, and not through a re-pin to another case', async () => {
    const l = await ladder({ rungs: [rung('e1'), rung('v1')] });
    const [first, second] = l.rungs;
    await ran('e1', X, 'great');
    expect((await http.post(`/ladders/${l.id}/topup`, token)).status).toBe(200);
    const recorded = (await progress(l.id)).climbers[0].outcomes;
    expect(recorded).toEqual([expect.objectContaining({ rungId: first!.id, decidedVersion: 'v1.0.0', outcome: 'advanced', recorded: true, stale: false })]);

    const put = (rungs: object[]) => http.put(`/ladders/${l.id}`, token, { name: 'l', runsPerCell: 1, combos: [X], rungs });
    // Engine re-pin (and a reorder): the verdict stands, so the climber stays past the first rung.
    expect((await put([{ ...rung('v1'), id: second!.id }, { ...rung('e1', { engine: 'simple-2d' }), id: first!.id }])).status).toBe(200);
    let climber = (await progress(l.id)).climbers[0];
    expect(climber.outcomes).toEqual([expect.objectContaining({ rungId: first!.id, outcome: 'advanced', recorded: true, stale: false })]);
    // Back in the first place, the verdict still governs: the climber stands on the next rung.
    expect((await put([{ ...rung('e1', { engine: 'simple-2d' }), id: first!.id }, { ...rung('v1'), id: second!.id }])).status).toBe(200);
    climber = (await progress(l.id)).climbers[0];
    expect(climber.currentRung).toMatchObject({ rungId: second!.id, position: 1 });

    // Another case at the same version: the verdict is history, and the climber starts over.
    expect((await put([{ ...rung('v2'), id: first!.id }, { ...rung('v1'), id: second!.id }])).status).toBe(200);
    climber = (await progress(l.id)).climbers[0];
    expect(climber.currentRung).toMatchObject({ rungId: first!.id, position: 0, slug: 'v2' });
    expect(climber.outcomes).toEqual([expect.objectContaining({ rungId: first!.id, outcome: 'advanced', stale: true })]);
  });
});

describe('a recorded wall (walk_climb → rung_state(…, GateOutcome::Wall))', () => {
  it('shows currentRung.outcome "wall" for a climber walled by an override, whatever the evidence says', async () => {
    const l = await ladder({ rungs: [rung('w1'), rung('s1')] });
    await ran('w1', X, 'great');
    const walled = await http.post(`/ladders/${l.id}/outcomes`, token, { combination: X, rungId: l.rungs[0]!.id, outcome: 'walled' });
    expect(walled.status, JSON.stringify(walled.body)).toBe(200);
    expect(walled.body).toMatchObject({ outcome: 'advanced', overrideOutcome: 'walled', effective: 'walled', recorded: true });
    const climber = (await progress(l.id)).climbers[0];
    expect(climber).toMatchObject({ status: 'walled', currentRung: { rungId: l.rungs[0]!.id, outcome: 'wall', tally: { completed: 1, passing: 1 } } });
    expect((await progress(l.id)).climbersWalled).toBe(1);
  });
});

describe('the console’s steering bodies (LadderClimberInput, LadderOverrideInput, set_outcome, reorder_rungs)', () => {
  it('takes { combination } on climbers and outcomes and answers 404 for an unknown rung', async () => {
    const l = await ladder({ combos: [X, Y], rungs: [rung('o1'), rung('h1')] });
    const steered = await http.post(`/ladders/${l.id}/climbers`, token, { combination: { ...Y, provider: null, ggConfigId: null, ggConfigName: null, ggSlotModels: {} }, priority: 5, focused: true });
    expect(steered.status, JSON.stringify(steered.body)).toBe(200);
    expect(steered.body).toEqual({ key: 'h|claude|vendor/y', priority: 5, focused: true, held: false });
    expect((await progress(l.id)).climbers.map((c: { model: string }) => c.model)).toEqual([Y.model, X.model]);

    const unknown = await http.post(`/ladders/${l.id}/outcomes`, token, { combination: X, rungId: 'no-such-rung', outcome: 'advanced' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain('no-such-rung');

    await ran('o1', X, 'great');
    const cleared = await http.post(`/ladders/${l.id}/outcomes`, token, { combination: X, rungId: l.rungs[0]!.id });
    expect(cleared.body).toMatchObject({ outcome: 'advanced', overrideOutcome: null, effective: 'advanced' });

  });

  it('answers a reorder with the rungs as rung_to_wire writes them: engine and runs left out when none and inherited', async () => {
    const l = await ladder({ rungs: [rung('o1'), rung('e1', { engine: 'simple-2d', runs: 3 })] });
    const reordered = await http.post(`/ladders/${l.id}/rungs/order`, token, { rungIds: [l.rungs[1]!.id, l.rungs[0]!.id] });
    expect(reordered.status).toBe(200);
    // LadderRung: `engine` and `runs` are `skip_serializing_if = "Option::is_none"`.
    expect(reordered.body).toEqual([
      { id: l.rungs[1]!.id, slug: 'e1', version: 'v1.0.0', variant: 'base', engine: 'simple-2d', runs: 3 },
      { id: l.rungs[0]!.id, slug: 'o1', version: 'v1.0.0', variant: 'base' },
    ]);
    // The ladder itself keeps the contract's rung shape.
    expect((await http.get(`/ladders/${l.id}`, token)).body.rungs[1]).toEqual({ id: l.rungs[0]!.id, slug: 'o1', version: 'v1.0.0', variant: 'base', engine: 'none', runs: null });
  });
});

describe('ladder occupancy and queue (load_board: cell_sets, order_cells; the buffer over reached cells)', () => {
  it('counts a cell two rungs name once, lists its runs once, and counts in-flight jobs whatever launched them', async () => {
    // Two rungs pin one case: 2 runs a rung, one reviewed great (the default gate advances on one).
    const l = await ladder({ runsPerCell: 2, rungs: [rung('s1'), rung('s1')] });
    await ran('s1', X, 'great');
    const unreviewed = await ran('s1', X);
    let board = await progress(l.id);
    expect(board).toMatchObject({ climbersToppedOut: 1, runsUnreviewed: 1, runsOutstanding: 1 });
    const queue = (await http.get(`/ladders/${l.id}/queue`, token)).body;
    expect(queue).toEqual({
      runs: [{ runId: unreviewed, rungId: l.rungs[0]!.id, slug: 's1', version: 'v1.0.0', variant: 'base', engine: 'none', harness: 'claude', model: X.model, finishedAt: expect.any(String) }],
      truncated: false,
    });

    // A climber on its first rung: a hand launch in that cell (no origin) holds a buffer slot.
    const other = await ladder({ runsPerCell: 2, combos: [Y], rungs: [rung('h1')], schedule: { paused: false, bufferTarget: { kind: 'bounded', runs: 1 } } });
    expect((await http.post('/jobs', token, { testCase: 'h1', version: 'v1.0.0', variant: 'base', ...Y })).status).toBe(202);
    board = await progress(other.id);
    expect(board).toMatchObject({ runsMissing: 1, runsOutstanding: 1 });
    expect((await http.post(`/ladders/${other.id}/topup`, token)).body).toMatchObject({ outstanding: 1, enqueued: 0, cells: [] });
  });
});

describe('harness parallelism first (schedule.rs top_up, which a ladder’s top_up_locked calls with the board’s outstanding)', () => {
  it('launches the current rungs of climbers whose harness has a free slot before the others', async () => {
    const capped = { harness: 'codex', model: X.model };
    const cappedToo = { harness: 'codex', model: Y.model };
    expect((await http.put('/harness-config/codex', token, { maxParallelism: 1 })).status).toBe(200);
    try {
      // Two runs a cell, a bound of 3, codex capped at 1 with nothing in flight: pass one takes
      // codex x (0 < 1, then 2 in flight), defers codex y (2 >= 1) and takes claude y; the
      // occupancy is then 4 >= 3 and pass two launches nothing.
      const l = await ladder({ runsPerCell: 2, combos: [capped, cappedToo, Y], rungs: [rung('p1')], schedule: { paused: false, bufferTarget: { kind: 'bounded', runs: 3 } } });
      const answer = (await http.post(`/ladders/${l.id}/topup`, token)).body;
      expect(answer).toMatchObject({ outstanding: 0, enqueued: 4 });
      expect(answer.cells.map((c: { rungId: string; harness: string; model: string; runs: number }) => [c.rungId, c.harness, c.model, c.runs])).toEqual([
        [l.rungs[0]!.id, 'codex', X.model, 2],
        [l.rungs[0]!.id, 'claude', Y.model, 2],
      ]);
    } finally {
      await http.put('/harness-config/codex', token, { maxParallelism: null });
    }
  });
});
