import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimNext, completeClaimed } from '../helpers/dispatcher.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'coverage-dispatch-secret';
const MODELS = ['vendor/alpha', 'vendor/beta', 'vendor/root'];
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let reviewer: string;
let intruder: string;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: MODELS });
  await seedCatalog(backend.store, backend.dataDir, [
    { slug: 'carom', version: 'v1.0.0', engines: ['simple-2d'], domains: ['gameplay'] },
    { slug: 'carom', version: 'v1.1.0', engines: ['simple-2d'], domains: ['gameplay'] },
    { slug: 'pong', version: 'v1.0.0', domains: ['gameplay'] },
  ]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  reviewer = (await backend.auth.register('reviewer', 'Rae Viewer')).token;
  intruder = (await backend.auth.register('intruder')).token;
});
afterAll(async () => {
  await backend?.close();
});

const review = (runId: string) =>
  http.post(`/runs/${runId}/reviews`, reviewer, { ratings: [{ domain: 'gameplay', rating: 'great' }], writeup: 'Plays well.' });

/** Every non-terminal job, as the console's active list shows it. */
const active = async () => (await http.get('/jobs/active')).body.jobs as Array<{ runId: string; state: string; origin: string | null; testCaseSlug: string; modelId: string; harnessSlug: string; engine: string; ggPreset: string | null }>;

function expectError(response: { status: number; body: { error?: { code: string; message: string } } }, status: number, ...fragments: string[]) {
  expect(response.status).toBe(status);
  expect(response.body.error).toEqual({ code: expect.any(String), message: expect.any(String) });
  for (const fragment of fragments) expect(response.body.error!.message).toContain(fragment);
}

describe('a reviewer keeps a plan fed over HTTP', () => {
  let planId: string;
  let caseGroupId: string;
  let ggConfigId: string;

  it('creates groups and a plan, and reads a matrix of every case x combination cell in plan order', async () => {
    const config = await http.post('/gg/configs', reviewer, { name: 'Duo', capabilitySet: {}, slotModels: { root: 'vendor/root' } });
    expect(config.status).toBe(201);
    ggConfigId = `saved:${config.body.id}`;

    const combos = await http.post('/coverage-groups', reviewer, {
      name: 'Frontier', kind: 'combo', combos: [{ harness: 'claude', model: 'vendor/alpha' }, { harness: 'codex', model: 'vendor/beta', provider: 'acme' }],
    });
    expect(combos.status).toBe(201);
    expect(combos.body).toMatchObject({ kind: 'combo', cases: [], combos: [{ harness: 'claude', model: 'vendor/alpha', provider: null, ggConfigId: null }, { provider: 'acme' }] });
    const cases = await http.post('/coverage-groups', reviewer, {
      name: 'Arcade', kind: 'case', cases: [{ slug: 'carom', version: 'v1.0.0', variant: 'base', engine: 'simple-2d' }, { slug: 'pong', version: 'v1.0.0', variant: 'base' }],
    });
    expect(cases.status).toBe(201);
    caseGroupId = cases.body.id;
    expect((await http.get('/coverage-groups', reviewer)).body.map((group: { name: string }) => group.name)).toEqual(['Frontier', 'Arcade']);

    const plan = await http.post('/coverage-plans', reviewer, {
      name: 'Weekly', runsPerCell: 2, comboGroupIds: [combos.body.id], caseGroupIds: [caseGroupId],
      combos: [{ ggConfigId, ggSlotModels: {} }], cases: [{ slug: 'ghost', version: 'v9.0.0', variant: 'base' }],
      schedule: { autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 6 } },
    });
    expect(plan.status).toBe(201);
    planId = plan.body.id;
    expect(plan.body).toMatchObject({
      name: 'Weekly', runsPerCell: 2, outerAxis: 'case', paused: false, autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 6 },
      combos: [{ harness: 'gg', model: 'vendor/root', ggConfigId, ggConfigName: 'Duo', ggSlotModels: {} }],
    });

    const matrix = (await http.get(`/coverage-plans/${planId}/coverage`, reviewer)).body;
    expect(matrix.cells.map((cell: { slug: string; harness: string }) => `${cell.slug}/${cell.harness}`)).toEqual([
      'carom/claude', 'carom/codex', 'carom/gg', 'pong/claude', 'pong/codex', 'pong/gg', 'ghost/claude', 'ghost/codex', 'ghost/gg',
    ]);
    expect(matrix).toMatchObject({
      outerAxis: 'case', cellsTotal: 9, cellsSatisfied: 0, runsMissing: 18, runsPending: 0, runsUnreviewed: 0, runsOutstanding: 0,
      bufferTarget: { kind: 'bounded', runs: 6 },
    });
    expect(matrix.cells[0]).toMatchObject({
      slug: 'carom', version: 'v1.0.0', engine: 'simple-2d', desired: 2, completed: 0, inFlight: 0, pending: 0, unreviewed: 0, remaining: 2,
      latestVersion: 'v1.1.0', stale: true, unlaunchable: null,
    });
    expect(matrix.cells[2]).toMatchObject({ harness: 'gg', model: 'vendor/root', ggConfigName: 'Duo' });
    expect(matrix.cells[3]).toMatchObject({ slug: 'pong', engine: 'none', latestVersion: 'v1.0.0', stale: false });
    expect(matrix.cells[6]).toMatchObject({ slug: 'ghost', latestVersion: '', unlaunchable: 'No test case "ghost" is ingested.' });

    // A schedule write without bufferTarget inherits (clears the override), as the original's whole-schedule write does.
    const byCombination = await http.put(`/coverage-plans/${planId}/schedule`, reviewer, { outerAxis: 'combination', bufferTarget: { kind: 'bounded', runs: 6 } });
    expect(byCombination.body).toEqual({ outerAxis: 'combination', paused: false, autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 6 } });
    const reordered = (await http.get(`/coverage-plans/${planId}/coverage`, reviewer)).body;
    expect(reordered.cells.slice(0, 4).map((cell: { slug: string; harness: string }) => `${cell.slug}/${cell.harness}`)).toEqual([
      'carom/claude', 'pong/claude', 'ghost/claude', 'carom/codex',
    ]);
    await http.put(`/coverage-plans/${planId}/schedule`, reviewer, { outerAxis: 'case', bufferTarget: { kind: 'bounded', runs: 6 } });
  });

  it('tops up whole cells in plan order until the buffer target, each job recording the plan as its origin', async () => {
    const topUp = await http.post(`/coverage-plans/${planId}/topup`, reviewer);
    expect(topUp.status).toBe(200);
    // The ghost case's cells cannot launch and still miss runs: listed whatever the buffer.
    const ghost = 'No test case "ghost" is ingested.';
    expect(topUp.body).toMatchObject({ bufferTarget: { kind: 'bounded', runs: 6 }, outstanding: 0, enqueued: 6 });
    expect(topUp.body.unlaunchable.map((item: { slug: string; harness: string; reason: string }) => [item.slug, item.harness, item.reason])).toEqual([
      ['ghost', 'claude', ghost], ['ghost', 'codex', ghost], ['ghost', 'gg', ghost],
    ]);
    expect(topUp.body.skipped).toBeUndefined();
    expect(topUp.body.cells.map((item: { harness: string; runs: number; jobIds: string[] }) => [item.harness, item.runs, item.jobIds.length])).toEqual([
      ['claude', 2, 2], ['codex', 2, 2], ['gg', 2, 2],
    ]);
    const jobs = await active();
    expect(jobs.map((job) => job.runId)).toEqual(topUp.body.cells.flatMap((item: { jobIds: string[] }) => item.jobIds));
    expect(new Set(jobs.map((job) => job.origin))).toEqual(new Set([`plan:${planId}`]));
    expect(jobs.every((job) => job.testCaseSlug === 'carom' && job.engine === 'simple-2d')).toBe(true);
    expect(jobs.slice(4)).toEqual([expect.objectContaining({ harnessSlug: 'gg', modelId: 'vendor/root', ggPreset: 'Duo' }), expect.anything()]);

    const again = await http.post(`/coverage-plans/${planId}/topup`, reviewer);
    expect(again.body).toMatchObject({ outstanding: 6, enqueued: 0, cells: [] });
    expect(again.body.skipped).toBeUndefined();
    expect((await active()).length).toBe(6);
  });

  it('counts completed runs and the reviewer’s unreviewed ones, and a review refills the buffer (auto top-up)', async () => {
    const runIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const claimed = await claimNext(http, SERVICE);
      expect(claimed).toMatchObject({ origin: `plan:${planId}`, request: { testCase: 'carom', harness: 'claude', engine: 'simple-2d' } });
      runIds.push(await completeClaimed(http, claimed!));
    }
    let matrix = (await http.get(`/coverage-plans/${planId}/coverage`, reviewer)).body;
    expect(matrix.cells[0]).toMatchObject({ completed: 2, inFlight: 0, unreviewed: 2, remaining: 0, runsOutstanding: 2 });
    // A cell is satisfied once nothing remains to launch: the two cells still in flight count too.
    expect(matrix).toMatchObject({ cellsSatisfied: 3, runsUnreviewed: 2, runsOutstanding: 6 });

    const reviewed = await review(runIds[0]!);
    expect(reviewed.status).toBe(200);
    // Occupancy fell to 5 of 6: the next cell in plan order (pong x claude, 2 runs) was launched.
    const jobs = await active();
    expect(jobs.length).toBe(6);
    expect(jobs.slice(4).map((job) => `${job.testCaseSlug}/${job.harnessSlug}/${job.origin}`)).toEqual([
      `pong/claude/plan:${planId}`, `pong/claude/plan:${planId}`,
    ]);
    matrix = (await http.get(`/coverage-plans/${planId}/coverage`, reviewer)).body;
    expect(matrix).toMatchObject({ runsUnreviewed: 1, runsOutstanding: 7, runsMissing: 10 });
    // Reviews are per account: another account's matrix counts both runs as unreviewed by it.
    const other = await http.post('/coverage-plans', intruder, { name: 'Mine', runsPerCell: 2, combos: [{ harness: 'claude', model: 'vendor/alpha' }], cases: [{ slug: 'carom', version: 'v1.0.0', variant: 'base', engine: 'simple-2d' }] });
    expect((await http.get(`/coverage-plans/${other.body.id}/coverage`, intruder)).body.cells[0]).toMatchObject({ completed: 2, unreviewed: 2 });
  });

  it('lists the plan’s unreviewed runs in plan order, capped with truncated', async () => {
    for (let i = 0; i < 2; i++) await completeClaimed(http, (await claimNext(http, SERVICE))!);
    const queue = await http.get(`/coverage-plans/${planId}/queue`, reviewer);
    expect(queue.status).toBe(200);
    expect(queue.body.truncated).toBe(false);
    expect(queue.body.runs.map((run: { harness: string }) => run.harness)).toEqual(['claude', 'codex', 'codex']);
    const capped = await http.get(`/coverage-plans/${planId}/queue?limit=1`, reviewer);
    expect(capped.body).toEqual({
      truncated: true,
      runs: [{ runId: expect.any(String), slug: 'carom', version: 'v1.0.0', variant: 'base', engine: 'simple-2d', harness: 'claude', model: 'vendor/alpha', finishedAt: expect.any(String) }],
    });
  });

  it('summarizes every plan of the account', async () => {
    const summary = await http.get('/coverage-plans/summary', reviewer);
    expect(summary.status).toBe(200);
    expect(summary.body).toEqual([{ id: planId, name: 'Weekly', runsPerCell: 2, paused: false, autoTopUp: true, cellsTotal: 9, cellsSatisfied: 4, runsMissing: 10, runsUnreviewed: 3 }]);
  });

  it('records a hand launch’s origin when it names the caller’s plan, and refuses others', async () => {
    const launch = { testCase: 'pong', version: 'v1.0.0', variant: 'base', harness: 'claude', model: 'vendor/alpha' };
    const own = await http.post(`/jobs?origin=plan:${planId}`, reviewer, launch);
    expect(own.status).toBe(202);
    expect((await active()).find((job) => job.runId === own.body.jobId)?.origin).toBe(`plan:${planId}`);
    expectError(await http.post(`/jobs?origin=plan:${planId}`, intruder, launch), 400, 'querystring.origin', `plan:${planId}`, 'names no coverage plan');
    expectError(await http.post('/jobs/batch?origin=plan', reviewer, { runs: [launch] }), 400, 'querystring.origin', 'plan:<id>');
    expectError(await http.post('/gg/runs?origin=plan:nope', reviewer, { testCase: 'pong', version: 'v1.0.0', presetId: ggConfigId.slice(6) }), 400, 'querystring.origin');
    const batch = await http.post(`/jobs/batch?origin=plan:${planId}`, reviewer, { runs: [launch] });
    expect((await active()).find((job) => job.runId === batch.body.jobs[0].jobId)?.origin).toBe(`plan:${planId}`);
  });

  it('halts only the plan’s jobs: halt the waiting ones, halt-all the active ones too', async () => {
    const foreign = await http.post('/jobs', intruder, { testCase: 'pong', version: 'v1.0.0', variant: 'base', harness: 'claude', model: 'vendor/alpha' });
    const dispatched = await claimNext(http, SERVICE);
    expect(dispatched!.origin).toBe(`plan:${planId}`);
    const before = await active();
    const waiting = before.filter((job) => job.origin === `plan:${planId}` && job.state === 'queued').length;

    const halt = await http.post(`/coverage-plans/${planId}/halt`, reviewer);
    expect(halt.body).toEqual({ canceled: waiting, includedActive: false });
    expect((await http.get(`/coverage-plans/${planId}/schedule`, reviewer)).body.paused).toBe(true);
    expect((await active()).map((job) => job.runId).sort()).toEqual([dispatched!.jobId, foreign.body.jobId].sort());
    const paused = await http.post(`/coverage-plans/${planId}/topup`, reviewer);
    expect(paused.body).toMatchObject({ skipped: 'paused', enqueued: 0 });

    const haltAll = await http.post(`/coverage-plans/${planId}/halt-all`, reviewer);
    expect(haltAll.body).toEqual({ canceled: 1, includedActive: true });
    expect((await active()).map((job) => job.runId)).toEqual([foreign.body.jobId]);
    expect((await http.get(`/jobs/${dispatched!.jobId}`)).body.state).toBe('canceled');

    const resumed = await http.post(`/coverage-plans/${planId}/pause`, reviewer, { paused: false });
    expect(resumed.body.paused).toBe(false);
    expect((await active()).length).toBe(1);
  });

  it('never fails a review because what follows it failed', async () => {
    backend.app.scheduleOwners.reviewFollowUps.add(async () => {
      throw new Error('follow-up broke');
    });
    const queue = (await http.get(`/coverage-plans/${planId}/queue`, reviewer)).body;
    const runId = queue.runs[0].runId as string;
    expect((await review(runId)).status).toBe(200);
    expect((await http.get(`/runs/${runId}`)).body.reviews).toEqual([expect.objectContaining({ username: 'reviewer', writeup: 'Plays well.' })]);
  });

  it('keeps a plan whose group was deleted, ignoring the dangling id', async () => {
    expect((await http.delete(`/coverage-groups/${caseGroupId}`, reviewer)).status).toBe(204);
    const plan = (await http.get(`/coverage-plans/${planId}`, reviewer)).body;
    expect(plan.caseGroupIds).toEqual([caseGroupId]);
    const matrix = (await http.get(`/coverage-plans/${planId}/coverage`, reviewer)).body;
    expect(matrix.cells.map((cell: { slug: string }) => cell.slug)).toEqual(['ghost', 'ghost', 'ghost']);
  });
});

describe('settings and schedules', () => {
  it('reads the compiled-in default without writing a row, and a PUT makes it the account’s choice', async () => {
    const fresh = (await backend.auth.register('settler')).token;
    expect((await http.get('/coverage-settings', fresh)).body).toEqual({ bufferTarget: { kind: 'bounded', runs: 10 }, isDefault: true });
    expect(await backend.store.db.selectFrom('coverage_settings').select((eb) => eb.fn.countAll<number>().as('rows')).executeTakeFirstOrThrow()).toEqual({ rows: 0 });
    expect((await http.put('/coverage-settings', fresh, { bufferTarget: { kind: 'unbounded' } })).body).toEqual({ bufferTarget: { kind: 'unbounded' }, isDefault: false });
    expect((await http.get('/coverage-settings', fresh)).body).toEqual({ bufferTarget: { kind: 'unbounded' }, isDefault: false });
    expectError(await http.put('/coverage-settings', fresh, { bufferTarget: { kind: 'bounded' } }), 400, 'body.bufferTarget.runs');
    expectError(await http.put('/coverage-settings', fresh, { bufferTarget: { kind: 'bounded', runs: -1 } }), 400, 'body.bufferTarget.runs');
    expectError(await http.put('/coverage-settings', fresh, { bufferTarget: { kind: 'some' } }), 400, 'body.bufferTarget.kind');

    // A plan without an override inherits the account's target; bound 0 never tops up.
    const plan = (await http.post('/coverage-plans', fresh, { name: 'P', runsPerCell: 1, combos: [{ harness: 'claude', model: 'vendor/alpha' }], cases: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }] })).body;
    expect((await http.get(`/coverage-plans/${plan.id}/coverage`, fresh)).body.bufferTarget).toEqual({ kind: 'unbounded' });
    await http.put(`/coverage-plans/${plan.id}/schedule`, fresh, { bufferTarget: { kind: 'bounded', runs: 0 } });
    // Occupancy counts the cell's jobs in flight whatever launched them: the reviewer's two above.
    expect((await http.post(`/coverage-plans/${plan.id}/topup`, fresh)).body).toEqual({
      bufferTarget: { kind: 'bounded', runs: 0 }, outstanding: 2, enqueued: 0, cells: [], unlaunchable: [],
    });
    // A PUT of the plan without a schedule leaves it alone; a null override inherits again.
    const put = await http.put(`/coverage-plans/${plan.id}`, fresh, { name: 'P2', runsPerCell: 3, cases: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }] });
    expect(put.body).toMatchObject({ name: 'P2', runsPerCell: 3, combos: [], bufferTarget: { kind: 'bounded', runs: 0 } });
    expect((await http.put(`/coverage-plans/${plan.id}/schedule`, fresh, { bufferTarget: null })).body.bufferTarget).toBeNull();
  });
});

describe('errors answer the envelope naming the field', () => {
  const plan = { name: 'X', runsPerCell: 1, combos: [{ harness: 'claude', model: 'vendor/alpha' }], cases: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }] };

  it('refuses runsPerCell outside 1..=100 with the bound and the value', async () => {
    expectError(await http.post('/coverage-plans', reviewer, { ...plan, runsPerCell: 0 }), 400, 'body.runsPerCell', '1 and 100', 'got 0');
    expectError(await http.post('/coverage-plans', reviewer, { ...plan, runsPerCell: 101 }), 400, 'body.runsPerCell', 'got 101');
    expectError(await http.post('/coverage-plans', reviewer, { ...plan, runsPerCell: 1.5 }), 400, 'body.runsPerCell');
  });

  it('refuses malformed members, naming the member', async () => {
    const foreignConfig = (await http.post('/gg/configs', intruder, { name: 'Theirs', capabilitySet: {}, slotModels: { root: 'vendor/alpha' } })).body.id;
    expectError(await http.post('/coverage-groups', reviewer, { name: 'G', kind: 'combo', combos: [{ ggConfigId: `saved:${foreignConfig}`, ggSlotModels: {} }] }), 400, 'body.combos[0].ggConfigId', 'names no gg configuration');
    expectError(await http.post('/coverage-groups', reviewer, { name: 'G', kind: 'combo', combos: [{ ggConfigId: foreignConfig }] }), 400, 'body.combos[0].ggConfigId', 'saved:<id>');
    expectError(await http.post('/coverage-groups', reviewer, { name: 'G', kind: 'combo', combos: [{ harness: 'gg', model: 'm' }] }), 400, 'body.combos[0].harness');
    expectError(await http.post('/coverage-groups', reviewer, { name: 'G', kind: 'combo', combos: [{ harness: 'claude' }] }), 400, 'body.combos[0].model');
    expectError(await http.post('/coverage-groups', reviewer, { name: 'G', kind: 'case', cases: [{ slug: 'pong', version: 'v1.0.0', variant: 'base', engine: 'warp' }] }), 400, 'body.cases[0].engine', 'warp');
    expectError(await http.post('/coverage-groups', reviewer, { name: 'G', kind: 'case', combos: [{ harness: 'claude', model: 'm' }] }), 400, 'body.combos');
    expectError(await http.post('/coverage-groups', reviewer, { name: 'G', kind: 'tuple' }), 400, 'body.kind');
    expectError(await http.post('/coverage-plans', reviewer, { ...plan, cases: [{ slug: 'pong', version: 'v1.0.0', variant: 'base', engine: 'warp' }] }), 400, 'body.cases[0].engine');
    expectError(await http.post('/coverage-plans', reviewer, { ...plan, extra: 1 }), 400, 'body.extra');
    expectError(await http.post('/coverage-plans', reviewer, { ...plan, schedule: { outerAxis: 'diagonal' } }), 400, 'body.schedule.outerAxis');
    const caseGroup = (await http.post('/coverage-groups', reviewer, { name: 'C', kind: 'case', cases: [] })).body.id;
    expectError(await http.post('/coverage-plans', reviewer, { ...plan, comboGroupIds: [caseGroup] }), 400, 'body.comboGroupIds[0]', 'case group');
  });

  it('answers 404, never 403, for another account’s plan or group, and 401 without a token', async () => {
    const mine = (await http.post('/coverage-plans', reviewer, plan)).body.id;
    const group = (await http.post('/coverage-groups', reviewer, { name: 'G', kind: 'case', cases: [] })).body.id;
    for (const [method, path, body] of [
      ['get', `/coverage-plans/${mine}`], ['put', `/coverage-plans/${mine}`, plan], ['delete', `/coverage-plans/${mine}`],
      ['get', `/coverage-plans/${mine}/coverage`], ['get', `/coverage-plans/${mine}/schedule`], ['put', `/coverage-plans/${mine}/schedule`, {}],
      ['post', `/coverage-plans/${mine}/topup`], ['get', `/coverage-plans/${mine}/queue`], ['post', `/coverage-plans/${mine}/pause`, { paused: true }],
      ['post', `/coverage-plans/${mine}/halt`], ['post', `/coverage-plans/${mine}/halt-all`],
      ['put', `/coverage-groups/${group}`, { name: 'G', kind: 'case' }], ['delete', `/coverage-groups/${group}`],
    ] as const) {
      const call = http[method as 'post'];
      expectError(await call(path, intruder, body), 404, mine === path.split('/')[2] ? mine : group);
    }
    expect((await http.get(`/coverage-plans/${mine}`, reviewer)).body.paused).toBe(false);
    expectError(await http.get('/coverage-plans'), 401);
    expectError(await http.get(`/coverage-plans/${mine}/queue?limit=0`, reviewer), 400, 'querystring.limit');
  });
});
