import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let alice: string;
let bob: string;

beforeAll(async () => {
  backend = await startTestBackend();
  await seedCatalog(backend.store, backend.dataDir, [
    { slug: 'pong', version: 'v1.0.0', engines: ['simple-2d'] },
    { slug: 'pong', version: 'v1.1.0', engines: ['simple-2d'] },
    { slug: 'maze', version: 'v2.0.0' },
    { slug: 'fuel', version: 'v1.0.0', testType: 'performance' },
    { slug: 'jam', version: 'v1.0.0', testType: 'game-jam' },
  ]);
  ({ token: alice } = await backend.auth.register('alice'));
  ({ token: bob } = await backend.auth.register('bob'));
});
afterAll(() => backend.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string | null, payload?: object) =>
  backend.app.inject({ method, url, ...(token ? { headers: bearer(token) } : {}), ...(payload ? { payload } : {}) });

const CLAUDE = { harness: 'claude', model: 'anthropic/claude-x' };
const ladderBody = (extra: object = {}) => ({
  name: 'Platformers',
  runsPerCell: 2,
  combos: [CLAUDE, { harness: 'codex', model: 'openai/gpt-y', provider: null }],
  rungs: [
    { slug: 'pong', version: 'v1.0.0', variant: 'base' },
    { slug: 'maze', version: 'v2.0.0', variant: 'base', runs: 3 },
  ],
  ...extra,
});

async function create(extra: object = {}) {
  const response = await call('POST', '/ladders', alice, ladderBody(extra));
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

function expectError(response: { statusCode: number; json(): { error: { code: string; message: string } } }, status: number, ...fragments: string[]) {
  expect(response.statusCode).toBe(status);
  const { error } = response.json();
  expect(error.code).toBe({ 400: 'bad_request', 401: 'unauthorized', 404: 'not_found', 409: 'conflict' }[status]);
  for (const fragment of fragments) expect(error.message).toContain(fragment);
}

describe('ladder CRUD', () => {
  it('creates a disabled ladder with the default gate, minted ids and flattened schedule', async () => {
    const ladder = await create();
    expect(ladder).toMatchObject({
      name: 'Platformers', runsPerCell: 2, paused: true, autoTopUp: true, outerAxis: 'rung', bufferTarget: null, comboGroupIds: [],
      gate: { floor: 'scuffed', threshold: { kind: 'count', runs: 1 }, unloadedCountsAsBroken: true, earlyStop: false },
      combos: [{ ...CLAUDE, provider: null, ggConfigId: null, ggConfigName: null, ggSlotModels: {} }, { harness: 'codex', model: 'openai/gpt-y' }],
      rungs: [{ slug: 'pong', version: 'v1.0.0', variant: 'base', engine: 'none', runs: null }, { slug: 'maze', runs: 3 }],
    });
    expect(ladder.id).toEqual(expect.any(String));
    expect(new Set(ladder.rungs.map((rung: { id: string }) => rung.id)).size).toBe(2);
  });

  it('reports a climber whose model the catalog does not hold as unlaunchable, on the climber itself', async () => {
    const ladder = await create();
    const board = (await call('GET', `/ladders/${ladder.id}/progress`, alice)).json();
    expect(board.climbers[0]).toMatchObject({ model: CLAUDE.model, status: 'climbing', unlaunchable: expect.stringContaining(CLAUDE.model) });
    expect(board.climbers[0].currentRung.unlaunchable).toEqual(board.climbers[0].unlaunchable);
  });

  it('takes a schedule on create with the schema defaults for what it leaves out', async () => {
    const ladder = await create({ schedule: { outerAxis: 'combination', bufferTarget: 4 } });
    expect(ladder).toMatchObject({ paused: false, autoTopUp: false, outerAxis: 'combination', bufferTarget: { kind: 'bounded', runs: 4 } });
  });

  it('lists the account\'s ladders as a bare array and hides them from other accounts (404, never 403)', async () => {
    const ladder = await create();
    const mine = await call('GET', '/ladders', alice);
    expect(Array.isArray(mine.json())).toBe(true);
    expect(mine.json().map((l: { id: string }) => l.id)).toContain(ladder.id);
    expect((await call('GET', '/ladders', bob)).json()).toEqual([]);
    for (const [method, url, payload] of [
      ['GET', `/ladders/${ladder.id}`], ['PUT', `/ladders/${ladder.id}`, ladderBody()], ['DELETE', `/ladders/${ladder.id}`],
      ['GET', `/ladders/${ladder.id}/schedule`], ['POST', `/ladders/${ladder.id}/rungs/order`, { rungIds: [] }],
      ['POST', `/ladders/${ladder.id}/climbers`, CLAUDE],
    ] as const) {
      expectError(await call(method, url, bob, payload), 404, ladder.id);
    }
    expectError(await call('GET', '/ladders', null), 401);
  });

  it('reconciles rungs by id on PUT: kept ids survive a reorder and a re-pin, new rungs get new ids, dropped ones go', async () => {
    const ladder = await create();
    const [pong, maze] = ladder.rungs;
    const response = await call('PUT', `/ladders/${ladder.id}`, alice, ladderBody({
      rungs: [
        { id: maze.id, slug: 'maze', version: 'v2.0.0', variant: 'base' },
        { slug: 'pong', version: 'v1.1.0', variant: 'base', engine: 'simple-2d' },
        { id: pong.id, slug: 'pong', version: 'v1.1.0', variant: 'base', engine: 'simple-2d' },
      ],
    }));
    expect(response.statusCode, response.body).toBe(200);
    const rungs = response.json().rungs;
    expect(rungs.map((rung: { id: string }) => rung.id)).toEqual([maze.id, expect.any(String), pong.id]);
    expect(rungs[1].id).not.toBe(maze.id);
    expect(rungs[1].id).not.toBe(pong.id);
    expect(rungs[2]).toMatchObject({ version: 'v1.1.0', engine: 'simple-2d' });
    // A PUT without a schedule leaves it alone.
    expect(response.json()).toMatchObject({ paused: true, autoTopUp: true });

    const dropped = await call('PUT', `/ladders/${ladder.id}`, alice, ladderBody({ rungs: [{ id: pong.id, slug: 'pong', version: 'v1.0.0', variant: 'base' }] }));
    expect(dropped.json().rungs.map((rung: { id: string }) => rung.id)).toEqual([pong.id]);
    // A dropped rung's id is gone for good: naming it again is refused rather than resurrected.
    expectError(await call('PUT', `/ladders/${ladder.id}`, alice, ladderBody({ rungs: [{ id: maze.id, slug: 'maze', version: 'v2.0.0', variant: 'base' }] })), 400, 'body.rungs[0].id', maze.id);
  });

  it('refuses bad declarations with a message naming the field', async () => {
    const cases: Array<[object, string[]]> = [
      [{ rungs: [{ slug: 'fuel', version: 'v1.0.0', variant: 'base' }] }, ['body.rungs[0]', 'performance']],
      [{ rungs: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }, { slug: 'jam', version: 'v9.9.9', variant: 'base' }] }, ['body.rungs[1]', 'game-jam']],
      [{ rungs: Array.from({ length: 51 }, () => ({ slug: 'pong', version: 'v1.0.0', variant: 'base' })) }, ['body.rungs', '50']],
      [{ runsPerCell: 101 }, ['body.runsPerCell', '100']],
      [{ runsPerCell: -1 }, ['body.runsPerCell']],
      [{ rungs: [{ id: 'x', slug: 'pong', version: 'v1.0.0', variant: 'base' }] }, ['body.rungs[0].id', 'minted']],
      [{ rungs: [{ slug: 'pong', version: 'v1.0.0', variant: 'base', engine: 'unreal' }] }, ['body.rungs[0].engine', 'unreal']],
      [{ rungs: [{ slug: 'pong', version: 'v1.0.0', variant: 'base', runs: 101 }] }, ['body.rungs.0.runs']],
      [{ gate: { floor: 'okay', threshold: { kind: 'count', runs: 1 } } }, ['body.gate.floor']],
      [{ gate: { floor: 'great', threshold: { kind: 'share', share: 1 } } }, ['body.gate.threshold']],
      [{ combos: [{ harness: 'nope', model: 'm' }] }, ['body.combos[0].harness', 'nope']],
      [{ combos: [{ harness: 'claude' }] }, ['body.combos[0].model']],
      [{ combos: [{ ggConfigId: 'saved:missing', ggSlotModels: { root: 'm' } }] }, ['body.combos[0].ggConfigId', 'saved:missing']],
      [{ combos: [{ ggConfigId: 'config-7' }] }, ['body.combos[0].ggConfigId', 'saved:<id>']],
      [{ schedule: { outerAxis: 'case' } }, ['body.schedule.outerAxis']],
    ];
    for (const [extra, fragments] of cases) {
      expectError(await call('POST', '/ladders', alice, ladderBody(extra)), 400, ...fragments);
    }
  });

  it('accepts a pin on a version that is not ingested (the board reports it) and a gate at its bounds', async () => {
    const ladder = await create({
      rungs: [{ slug: 'pong', version: 'v9.0.0', variant: 'base' }, { slug: 'unknown-case', version: 'v1.0.0', variant: 'base' }],
      gate: { floor: 'flawless', threshold: { kind: 'fraction', fraction: 7.5 }, earlyStop: true, unloadedCountsAsBroken: false },
    });
    expect(ladder.gate).toEqual({ floor: 'flawless', threshold: { kind: 'fraction', fraction: 7.5 }, earlyStop: true, unloadedCountsAsBroken: false });
  });

  it('runs a gg member of a configuration the account owns, and names it on read', async () => {
    const config = await call('POST', '/gg/configs', alice, { name: 'Deep', capabilitySet: { agents: [] }, slotModels: { root: 'org/root-model' } });
    const id = config.json().id;
    const ladder = await create({ combos: [{ ggConfigId: `saved:${id}`, ggSlotModels: { root: 'org/other' } }] });
    expect(ladder.combos).toEqual([{ harness: 'gg', model: 'org/other', provider: null, ggConfigId: `saved:${id}`, ggConfigName: 'Deep', ggSlotModels: { root: 'org/other' } }]);
    expectError(await call('POST', '/ladders', bob, ladderBody({ combos: [{ ggConfigId: `saved:${id}` }] })), 400, 'body.combos[0].ggConfigId');
  });

  it('deletes a ladder (204), after which it is gone (404)', async () => {
    const ladder = await create();
    expect((await call('DELETE', `/ladders/${ladder.id}`, alice)).statusCode).toBe(204);
    expectError(await call('GET', `/ladders/${ladder.id}`, alice), 404, ladder.id);
    expectError(await call('DELETE', `/ladders/${ladder.id}`, alice), 404);
  });
});

describe('rung order, schedule and steering', () => {
  it('reorders by a permutation of the current rung ids and refuses anything else', async () => {
    const ladder = await create();
    const [a, b] = ladder.rungs.map((rung: { id: string }) => rung.id);
    const url = `/ladders/${ladder.id}/rungs/order`;
    const reordered = await call('POST', url, alice, { rungIds: [b, a] });
    expect(reordered.statusCode, reordered.body).toBe(200);
    expect(reordered.json().map((rung: { id: string }) => rung.id)).toEqual([b, a]);
    expectError(await call('POST', url, alice, { rungIds: [a] }), 400, 'body.rungIds', 'leaves out', b);
    expectError(await call('POST', url, alice, { rungIds: [a, a] }), 400, 'body.rungIds[1]', 'twice');
    expectError(await call('POST', url, alice, { rungIds: [a, b, 'other'] }), 400, 'body.rungIds[2]', 'other');
    expectError(await call('POST', url, alice, {}), 400, 'body.rungIds');
    expect((await call('GET', `/ladders/${ladder.id}`, alice)).json().rungs.map((rung: { id: string }) => rung.id)).toEqual([b, a]);
  });

  it('writes the schedule field by field and reads it back flattened', async () => {
    const ladder = await create();
    const url = `/ladders/${ladder.id}/schedule`;
    expect((await call('GET', url, alice)).json()).toEqual({ outerAxis: 'rung', paused: true, autoTopUp: true, bufferTarget: null });
    const written = await call('PUT', url, alice, { paused: false, bufferTarget: { kind: 'unbounded' } });
    expect(written.json()).toEqual({ outerAxis: 'rung', paused: false, autoTopUp: true, bufferTarget: { kind: 'unbounded' } });
    expect((await call('PUT', url, alice, { bufferTarget: null })).json().bufferTarget).toBeNull();
    expect((await call('PUT', url, alice, { bufferTarget: 0 })).json().bufferTarget).toEqual({ kind: 'bounded', runs: 0 });
    expect((await call('GET', `/ladders/${ladder.id}`, alice)).json()).toMatchObject({ paused: false, bufferTarget: { kind: 'bounded', runs: 0 } });
    expectError(await call('PUT', url, alice, { bufferTarget: { kind: 'bounded', runs: -1 } }), 400, 'body.bufferTarget');
  });

  it('steers a climber by combination or key, whole, and refuses a combination the ladder does not climb', async () => {
    const ladder = await create();
    const url = `/ladders/${ladder.id}/climbers`;
    const steered = await call('POST', url, alice, { ...CLAUDE, priority: 5, focused: true });
    expect(steered.statusCode, steered.body).toBe(200);
    expect(steered.json()).toEqual({ key: expect.any(String), priority: 5, focused: true, held: false });
    const again = await call('POST', url, alice, { key: steered.json().key, held: true });
    expect(again.json()).toEqual({ key: steered.json().key, priority: 0, focused: false, held: true });
    expectError(await call('POST', url, alice, { harness: 'claude', model: 'someone/else' }), 400, 'does not climb');
    expectError(await call('POST', url, alice, { key: 'nobody' }), 400, '"nobody"');
    expectError(await call('POST', url, alice, { model: 'm', held: true }), 400, 'body.harness is required');
    expectError(await call('POST', url, alice, { ...CLAUDE, priority: 1.5 }), 400, 'body.priority');
  });
});
