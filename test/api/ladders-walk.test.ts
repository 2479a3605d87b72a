import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { claimNext, completeClaimed, type ClaimedRun } from '../helpers/dispatcher.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const CLAUDE = { harness: 'claude', model: 'anthropic/claude-x' };
const CODEX = { harness: 'codex', model: 'openai/gpt-y' };

let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let alice: string;
let bob: string;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: [CLAUDE.model, CODEX.model] });
  await seedCatalog(backend.store, backend.dataDir, [
    { slug: 'pong', version: 'v1.0.0', domains: ['play'] },
    { slug: 'maze', version: 'v1.0.0', domains: ['play'] },
    { slug: 'maze', version: 'v1.1.0', domains: ['play'] },
  ]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  alice = (await backend.auth.register('alice')).token;
  bob = (await backend.auth.register('bob')).token;
});
afterAll(() => backend.close());

/** Claims every queued job as a dispatcher would, in queue order. */
async function claimAll(): Promise<ClaimedRun[]> {
  const claimed: ClaimedRun[] = [];
  for (let job = await claimNext(http, SERVICE); job; job = await claimNext(http, SERVICE)) claimed.push(job);
  return claimed;
}

const finish = (job: ClaimedRun, options: { loaded?: boolean } = {}) => completeClaimed(http, job, 'completed', options.loaded ?? true);

const review = (token: string, runId: string, rating: string) =>
  http.post(`/runs/${runId}/reviews`, token, { ratings: [{ domain: 'play', rating }], writeup: `Rated ${rating}.` });

describe('one ladder, end to end over HTTP', () => {
  it('climbs as runs finish and reviews arrive; overrides and reorders keep verdicts; a halt stops it', async () => {
    const created = await http.post('/ladders', alice, {
      name: 'Two rungs', runsPerCell: 1, combos: [CLAUDE, CODEX],
      rungs: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }, { slug: 'maze', version: 'v1.0.0', variant: 'base' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const ladder = created.body;
    const [pong, maze] = ladder.rungs as Array<{ id: string }>;
    const progress = async () => (await http.get(`/ladders/${ladder.id}/progress`, alice)).body;
    const climber = (board: { climbers: Array<{ model: string }> }, model: string) => board.climbers.find((c) => c.model === model) as any;

    // Created disabled: the board shows both climbers at the first rung, and a top-up spends nothing.
    let board = await progress();
    expect(board).toMatchObject({ ladderId: ladder.id, outerAxis: 'rung', climbersToppedOut: 0, climbersWalled: 0, runsMissing: 2, runsOutstanding: 0 });
    expect(climber(board, CLAUDE.model)).toMatchObject({ status: 'climbing', currentRung: { rungId: pong!.id, position: 0, desired: 1, remaining: 1, tally: { pending: 1, required: 1 }, outcome: 'undecided' }, outcomes: [] });
    expect((await http.post(`/ladders/${ladder.id}/topup`, alice)).body).toMatchObject({ enqueued: 0, skipped: 'paused' });

    // Enabled, then topped up: each climber's first rung, and nothing above it, recorded as the ladder's.
    expect((await http.post(`/ladders/${ladder.id}/pause`, alice, { paused: false })).body).toMatchObject({ paused: false });
    const topUp = await http.post(`/ladders/${ladder.id}/topup`, alice);
    expect(topUp.body).toMatchObject({ enqueued: 2, outstanding: 0 });
    expect(topUp.body.cells.map((l: { slug: string; model: string }) => `${l.slug}:${l.model}`)).toEqual([`pong:${CLAUDE.model}`, `pong:${CODEX.model}`]);
    expect((await http.post(`/ladders/${ladder.id}/topup`, alice)).body).toMatchObject({ enqueued: 0, outstanding: 2 });

    // A dispatcher runs them: claude's build loads, codex's never does (broken without a review).
    const [claudeJob, codexJob] = await claimAll();
    expect([claudeJob!.origin, codexJob!.origin]).toEqual([`ladder:${ladder.id}`, `ladder:${ladder.id}`]);
    const claudePong = await finish(claudeJob!);
    await finish(codexJob!, { loaded: false });

    board = await progress();
    expect(climber(board, CLAUDE.model)).toMatchObject({ status: 'awaitingReview', currentRung: { tally: { completed: 1, judged: 0, unjudged: 1, pending: 0 }, outcome: 'undecided' } });
    expect(climber(board, CODEX.model)).toMatchObject({
      status: 'walled', currentRung: { rungId: pong!.id, tally: { judged: 1, passing: 0 }, outcome: 'wall' },
      outcomes: [{ rungId: pong!.id, outcome: 'walled', effective: 'walled', recorded: false, stale: false }],
    });
    // The unloaded build waits on nobody, so only claude's run holds a buffer slot and sits in the queue.
    expect(board).toMatchObject({ climbersWalled: 1, runsUnreviewed: 1, runsOutstanding: 1 });
    expect((await http.get(`/ladders/${ladder.id}/queue`, alice)).body.runs.map((run: { runId: string }) => run.runId)).toEqual([claudePong]);
    // A read never advances anyone.
    expect((await progress()).climbers).toEqual(board.climbers.map((c: object) => expect.objectContaining({ ...c, outcomes: expect.any(Array) })));

    // Alice's review clears pong for claude; the ladder tops itself up (autoTopUp) with maze only.
    expect((await review(alice, claudePong, 'great')).status).toBe(200);
    const [claudeMaze] = await claimAll();
    expect(claudeMaze!.request).toMatchObject({ testCase: 'maze', model: CLAUDE.model });
    board = await progress();
    expect(climber(board, CLAUDE.model)).toMatchObject({
      status: 'climbing', currentRung: { rungId: maze!.id, position: 1 },
      outcomes: [{ rungId: pong!.id, outcome: 'advanced', recorded: true }],
    });
    expect(climber(board, CODEX.model).outcomes).toEqual([expect.objectContaining({ outcome: 'walled', recorded: true })]);

    // Only alice's own review counts: bob's flawless rating leaves alice's gate waiting.
    const claudeMazeRun = await finish(claudeMaze!);
    expect((await review(bob, claudeMazeRun, 'flawless')).status).toBe(200);
    expect(climber(await progress(), CLAUDE.model)).toMatchObject({ status: 'awaitingReview', currentRung: { tally: { unjudged: 1 } } });
    expect((await review(alice, claudeMazeRun, 'broken')).status).toBe(200);
    board = await progress();
    const claude = climber(board, CLAUDE.model);
    expect(claude).toMatchObject({ status: 'walled', currentRung: { rungId: maze!.id, outcome: 'wall' } });

    // Overrides: a rung with no verdict is 409; promoting the wall tops claude out; clearing restores it.
    const outcomes = `/ladders/${ladder.id}/outcomes`;
    const noVerdict = await http.post(outcomes, alice, { key: climber(board, CODEX.model).key, rungId: maze!.id, outcome: 'advanced' });
    expect(noVerdict.status).toBe(409);
    expect(noVerdict.body.error.message).toContain(maze!.id);
    expect((await http.post(outcomes, alice, { key: claude.key, rungId: 'nope', outcome: 'advanced' })).body.error.message).toContain('body.rungId');
    const promoted = await http.post(outcomes, alice, { key: claude.key, rungId: maze!.id, outcome: 'advanced' });
    expect(promoted.body).toMatchObject({ rungId: maze!.id, outcome: 'walled', overrideOutcome: 'advanced', effective: 'advanced', recorded: true });
    expect(climber(await progress(), CLAUDE.model)).toMatchObject({ status: 'toppedOut', currentRung: null });
    expect((await http.post(outcomes, alice, { key: claude.key, rungId: maze!.id, outcome: null })).body).toMatchObject({ effective: 'walled', overrideOutcome: null });
    expect(climber(await progress(), CLAUDE.model).status).toBe('walled');
    await http.post(outcomes, alice, { key: claude.key, rungId: maze!.id, outcome: 'advanced' });

    // Reordering keeps every verdict with its rung: codex now starts on maze, where it has none.
    expect((await http.post(`/ladders/${ladder.id}/rungs/order`, alice, { rungIds: [maze!.id, pong!.id] })).status).toBe(200);
    board = await progress();
    expect(climber(board, CLAUDE.model)).toMatchObject({ status: 'toppedOut' });
    expect(climber(board, CLAUDE.model).outcomes.map((o: { rungId: string; effective: string }) => `${o.rungId}:${o.effective}`)).toEqual([`${maze!.id}:advanced`, `${pong!.id}:advanced`]);
    expect(climber(board, CODEX.model)).toMatchObject({ status: 'climbing', currentRung: { rungId: maze!.id, position: 0 } });

    // A version bump keeps the old verdict as stale history; pinning back restores it.
    const repin = (version: string) => http.put(`/ladders/${ladder.id}`, alice, {
      name: 'Two rungs', runsPerCell: 1, combos: [CLAUDE, CODEX],
      rungs: [{ id: maze!.id, slug: 'maze', version, variant: 'base' }, { id: pong!.id, slug: 'pong', version: 'v1.0.0', variant: 'base' }],
    });
    expect((await repin('v1.1.0')).status).toBe(200);
    expect(climber(await progress(), CLAUDE.model)).toMatchObject({
      status: 'climbing', currentRung: { rungId: maze!.id, version: 'v1.1.0' },
      outcomes: [expect.objectContaining({ rungId: pong!.id }), expect.objectContaining({ rungId: maze!.id, decidedVersion: 'v1.0.0', stale: true })],
    });
    await repin('v1.0.0');
    expect(climber(await progress(), CLAUDE.model).status).toBe('toppedOut');

    // Holding a climber stops it where it stands; the top-up launches codex's maze only, and a halt cancels it.
    const codexKey = climber(board, CODEX.model).key;
    expect((await http.post(`/ladders/${ladder.id}/climbers`, alice, { key: codexKey, held: true })).body).toMatchObject({ held: true });
    expect(climber(await progress(), CODEX.model)).toMatchObject({ status: 'held', currentRung: { rungId: maze!.id } });
    expect((await http.post(`/ladders/${ladder.id}/topup`, alice)).body).toMatchObject({ enqueued: 0 });
    await http.post(`/ladders/${ladder.id}/climbers`, alice, { key: codexKey, held: false });
    const resumed = await http.post(`/ladders/${ladder.id}/topup`, alice);
    expect(resumed.body.cells).toEqual([expect.objectContaining({ slug: 'maze', model: CODEX.model, runs: 1, jobIds: [expect.any(String)] })]);
    const halted = await http.post(`/ladders/${ladder.id}/halt`, alice);
    expect(halted.body).toEqual({ canceled: 1, includedActive: false });
    expect((await http.get(`/jobs/${resumed.body.cells[0].jobIds[0]}`)).body).toMatchObject({ state: 'canceled' });
    expect((await http.get(`/ladders/${ladder.id}/schedule`, alice)).body).toMatchObject({ paused: true });
    expect((await http.post(`/ladders/${ladder.id}/topup`, alice)).body).toMatchObject({ skipped: 'paused' });
  });

  it('answers the envelope for bad steering and foreign ids', async () => {
    const ladder = (await http.post('/ladders', alice, { name: 'x', runsPerCell: 1, combos: [CLAUDE], rungs: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }] })).body;
    for (const path of ['progress', 'queue', 'schedule']) expect((await http.get(`/ladders/${ladder.id}/${path}`, bob)).status).toBe(404);
    for (const path of ['topup', 'halt', 'halt-all']) expect((await http.post(`/ladders/${ladder.id}/${path}`, bob)).body.error.code).toBe('not_found');
    expect((await http.post(`/ladders/${ladder.id}/pause`, alice, { paused: 'no' })).body.error.message).toContain('body.paused');
    expect((await http.post(`/ladders/${ladder.id}/outcomes`, alice, { key: 'k', rungId: ladder.rungs[0].id, outcome: 'promote' })).body.error.message).toContain('body.outcome');
    expect((await http.post(`/ladders/${ladder.id}/outcomes`, alice, { key: 'k', rungId: ladder.rungs[0].id, outcome: null })).body.error.message).toContain('"k"');
    // A hand launch may count toward the ladder's buffer; another account's ladder is refused.
    const launch = { testCase: 'pong', version: 'v1.0.0', variant: 'base', ...CLAUDE };
    expect((await http.post(`/jobs?origin=ladder:${ladder.id}`, alice, launch)).status).toBe(202);
    const foreign = await http.post(`/jobs?origin=ladder:${ladder.id}`, bob, launch);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toContain('origin');
    expect((await http.post(`/ladders/${ladder.id}/halt-all`, alice)).body).toEqual({ canceled: 1, includedActive: true });
  });
});
