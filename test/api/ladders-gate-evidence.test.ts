import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let alice: string;
let bob: string;

beforeAll(async () => {
  backend = await startTestBackend();
  await seedCatalog(backend.store, backend.dataDir, [
    { slug: 'lift', version: 'v1.0.0', domains: ['play'], validatorChecklist: [{ id: 'jump', domains: ['play'], failureCap: 'broken' }] },
    { slug: 'pong', version: 'v1.0.0', domains: ['play'] },
  ]);
  alice = (await backend.auth.register('alice')).token;
  bob = (await backend.auth.register('bob')).token;
});
afterAll(() => backend.close());

const call = async (token: string, method: 'GET' | 'POST', url: string, payload?: object) => {
  const response = await backend.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json();
};

async function ladderOn(slug: string, model: string) {
  const ladder = await call(alice, 'POST', '/ladders', { name: slug, runsPerCell: 1, combos: [{ harness: 'claude', model }], rungs: [{ slug, version: 'v1.0.0', variant: 'base' }] });
  return async () => {
    const board = await call(alice, 'GET', `/ladders/${ladder.id}/progress`);
    return { board, climber: board.climbers[0], queue: (await call(alice, 'GET', `/ladders/${ladder.id}/queue`)).runs as Array<{ id: string }> };
  };
}

async function seed(slug: string, model: string, options: { verdicts?: Record<string, boolean>; state?: string; loaded?: boolean } = {}) {
  const record = runRecord({ slug, version: 'v1.0.0', harness: 'claude', model, verdicts: options.verdicts, state: options.state });
  if (options.loaded === false) (record.validation as { loaded: boolean }).loaded = false;
  await seedRun(backend, record);
  return String(record.id);
}

describe('what reaches the gate', () => {
  it('reads a validator-rated run by the validators until the requester reviews it; another account\'s review never counts', async () => {
    const progress = await ladderOn('lift', 'org/a');
    const run = await seed('lift', 'org/a', { verdicts: { jump: false } });
    expect((await progress()).climber).toMatchObject({ status: 'walled', currentRung: { tally: { completed: 1, judged: 1, passing: 0 }, outcome: 'wall' } });

    await call(bob, 'POST', `/runs/${run}/reviews`, { aesthetic: 'good', checklist: [{ id: 'jump', status: 'pass' }], writeup: 'It jumps.' });
    expect((await progress()).climber.status).toBe('walled');

    await call(alice, 'POST', `/runs/${run}/reviews`, { aesthetic: 'okay', checklist: [{ id: 'jump', status: 'pass' }], writeup: 'It jumps for me too.' });
    expect((await progress()).climber).toMatchObject({ status: 'toppedOut', outcomes: [{ outcome: 'advanced', recorded: false }] });
  });

  it('advances on a validators\' pass with no review at all', async () => {
    const progress = await ladderOn('lift', 'org/b');
    await seed('lift', 'org/b', { verdicts: { jump: true } });
    const { climber, board } = await progress();
    expect(climber).toMatchObject({ status: 'toppedOut', currentRung: null });
    // Still unreviewed by the requester, so it waits in the buffer.
    expect(board.runsUnreviewed).toBe(1);
  });

  it('never counts failed or canceled runs, and rates an unloaded build broken without holding a buffer slot', async () => {
    const progress = await ladderOn('pong', 'org/c');
    await seed('pong', 'org/c', { state: 'timed_out' });
    await seed('pong', 'org/c', { state: 'canceled' });
    await seed('pong', 'org/c', { state: 'infrastructure' });
    expect((await progress()).climber).toMatchObject({ status: 'climbing', currentRung: { completed: 0, remaining: 1, tally: { completed: 0, pending: 1 } } });

    await seed('pong', 'org/c', { loaded: false });
    const { climber, board, queue } = await progress();
    expect(climber).toMatchObject({ status: 'walled', currentRung: { unreviewed: 0, tally: { completed: 1, judged: 1, passing: 0 } } });
    expect(board).toMatchObject({ runsUnreviewed: 0, runsOutstanding: 0 });
    expect(queue).toEqual([]);
  });
});
