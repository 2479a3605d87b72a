import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const A = { harness: 'claude', model: 'org/a' };
const B = { harness: 'claude', model: 'org/b' };
const C = { harness: 'claude', model: 'org/c' };

let backend: TestBackend;
let alice: string;

beforeAll(async () => {
  backend = await startTestBackend({}, { pricedModels: [A.model, B.model, C.model] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'pong', version: 'v1.0.0', domains: ['play'] }, { slug: 'maze', version: 'v1.0.0', domains: ['play'] }]);
  alice = (await backend.auth.register('alice')).token;
});
afterAll(() => backend.close());

const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
  const response = await backend.app.inject({ method, url, headers: bearer(alice), ...(payload ? { payload } : {}) });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json();
};
const launchedCells = (topUp: { cells: Array<{ slug: string; model: string }> }) => topUp.cells.map((cell) => `${cell.slug}:${cell.model}`);

describe('feeding order', () => {
  it('feeds climbers by priority, focused first among equals, and emits on the outer axis', async () => {
    const ladder = await call('POST', '/ladders', {
      name: 'order', runsPerCell: 1, combos: [A, B, C],
      rungs: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }, { slug: 'maze', version: 'v1.0.0', variant: 'base' }],
      schedule: { paused: false, bufferTarget: { kind: 'unbounded' } },
    });
    const steer = (combo: object, steering: object) => call('POST', `/ladders/${ladder.id}/climbers`, { ...combo, ...steering });
    await steer(A, { priority: 10 });
    await steer(B, { focused: true });
    await steer(C, { priority: 0 });
    let board = await call('GET', `/ladders/${ladder.id}/progress`);
    expect(board.climbers.map((c: { model: string }) => c.model)).toEqual([A.model, B.model, C.model]);
    await steer(C, { priority: 1 });
    board = await call('GET', `/ladders/${ladder.id}/progress`);
    expect(board.climbers.map((c: { model: string }) => c.model)).toEqual([A.model, C.model, B.model]);

    // A clears pong with a run launched by hand and the requester's review: it stands on maze.
    const run = runRecord({ slug: 'pong', version: 'v1.0.0', harness: A.harness, model: A.model });
    await seedRun(backend, run);
    await call('POST', `/runs/${String(run.id)}/reviews`, { ratings: [{ domain: 'play', rating: 'passable' }], writeup: 'ok' });
    board = await call('GET', `/ladders/${ladder.id}/progress`);
    expect(board.climbers[0]).toMatchObject({ model: A.model, status: 'climbing', currentRung: { slug: 'maze' }, outcomes: [{ outcome: 'advanced', recorded: false }] });

    // `rung`: lower rungs first across climbers, feeding order within a rung; the live verdict is stored.
    const byRung = await call('POST', `/ladders/${ladder.id}/topup`);
    expect(launchedCells(byRung)).toEqual([`pong:${C.model}`, `pong:${B.model}`, `maze:${A.model}`]);
    expect((await call('GET', `/ladders/${ladder.id}/progress`)).climbers[0].outcomes).toEqual([expect.objectContaining({ outcome: 'advanced', recorded: true })]);

    // `combination`: climber by climber in feeding order.
    await call('POST', `/ladders/${ladder.id}/halt`);
    await call('PUT', `/ladders/${ladder.id}/schedule`, { outerAxis: 'combination', paused: false });
    const byClimber = await call('POST', `/ladders/${ladder.id}/topup`);
    expect(launchedCells(byClimber)).toEqual([`maze:${A.model}`, `pong:${C.model}`, `pong:${B.model}`]);
    expect(byClimber.cells.every((item: { runs: number; jobIds: string[] }) => item.runs === 1 && item.jobIds.length === 1)).toBe(true);
    expect(await call('POST', `/ladders/${ladder.id}/halt`)).toEqual({ canceled: 3, includedActive: false });
  });

  it('launches whole cells while the buffer has room: the cell that crosses the target overshoots, the next waits', async () => {
    const ladder = await call('POST', '/ladders', {
      name: 'buffer', runsPerCell: 2, combos: [A, B], rungs: [{ slug: 'maze', version: 'v1.0.0', variant: 'base' }],
      schedule: { paused: false, bufferTarget: 1 },
    });
    const topUp = await call('POST', `/ladders/${ladder.id}/topup`);
    expect(topUp).toMatchObject({ bufferTarget: { kind: 'bounded', runs: 1 }, outstanding: 0, enqueued: 2 });
    expect(launchedCells(topUp)).toEqual([`maze:${A.model}`]);
    expect(await call('POST', `/ladders/${ladder.id}/topup`)).toMatchObject({ outstanding: 2, enqueued: 0 });
    await call('PUT', `/ladders/${ladder.id}/schedule`, { bufferTarget: 0 });
    await call('POST', `/ladders/${ladder.id}/halt`);
    await call('POST', `/ladders/${ladder.id}/pause`, { paused: false });
    expect(await call('POST', `/ladders/${ladder.id}/topup`)).toMatchObject({ bufferTarget: { kind: 'bounded', runs: 0 }, enqueued: 0 });
  });

  it('serializes concurrent top-ups of one ladder: the shortfall is enqueued once', async () => {
    const ladder = await call('POST', '/ladders', {
      name: 'concurrent', runsPerCell: 3, combos: [A, B, C], rungs: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }],
      schedule: { paused: false, bufferTarget: { kind: 'unbounded' } },
    });
    // A's pong run from the first test counts toward its cell (cells count globally).
    const { runsMissing } = await call('GET', `/ladders/${ladder.id}/progress`);
    expect(runsMissing).toBe(8);
    const answers = await Promise.all(Array.from({ length: 8 }, () => call('POST', `/ladders/${ladder.id}/topup`)));
    expect(answers.reduce((sum, answer) => sum + answer.enqueued, 0)).toBe(runsMissing);
    for (const answer of answers) expect(answer.enqueued === runsMissing || answer.enqueued === 0).toBe(true);
    const origin = `ladder:${ladder.id}`;
    const queued = await backend.store.db.selectFrom('jobs').where('origin', '=', origin).select((eb) => eb.fn.countAll<number>().as('rows')).executeTakeFirstOrThrow();
    expect(queued).toEqual({ rows: runsMissing });
    expect(await call('POST', `/ladders/${ladder.id}/halt-all`)).toEqual({ canceled: runsMissing, includedActive: true });
  });
});
