/**
 * A schedule write racing a halt (issue 39 item 4). The write reads its owner, then writes;
 * a halt that pauses the owner in between must still stand once the write lands, because the
 * write named no `paused`. The race is forced, not hoped for: the owner read the write makes
 * first is wrapped so that the halt (a real request on the same app) runs right after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageContext } from '../../src/coverage/coverage-context.js';
import { putSchedule, updatePlan } from '../../src/coverage/coverage-plans.js';
import type { LadderContext } from '../../src/ladders/ladder-context.js';
import { putSchedule as putLadderSchedule, updateLadder } from '../../src/ladders/manage-ladders.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let token: string;
let accountId: string;

beforeAll(async () => {
  backend = await startTestBackend({}, { pricedModels: ['vendor/m1'] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'race', version: 'v1.0.0' }]);
  ({ token, account: { id: accountId } } = await backend.auth.register('scheduler'));
});
afterAll(() => backend?.close());

const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const response = await backend.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json();
};

const PLAN = {
  name: 'race', runsPerCell: 1, combos: [{ harness: 'claude', model: 'vendor/m1' }],
  cases: [{ slug: 'race', version: 'v1.0.0', variant: 'base' }], schedule: { paused: false, autoTopUp: true },
};
const LADDER = {
  name: 'race', runsPerCell: 1, combos: [{ harness: 'claude', model: 'vendor/m1' }],
  rungs: [{ slug: 'race', version: 'v1.0.0', variant: 'base' }], schedule: { paused: false, autoTopUp: true },
};

/** `get` that runs `between` once, right after its first read: between the write's read and its write. */
function haltingAfterFirstRead<T extends { get(accountId: string, id: string): Promise<unknown> }>(table: T, between: () => Promise<unknown>): T {
  let fired = false;
  return {
    ...table,
    async get(account: string, id: string) {
      const read = await table.get(account, id);
      if (!fired) {
        fired = true;
        await between();
      }
      return read;
    },
  };
}

describe('a schedule write racing a halt', () => {
  it("PUT /coverage-plans/{id}/schedule without `paused` keeps the halt's pause and writes what it names", async () => {
    const plan = await call('POST', '/coverage-plans', PLAN);
    const coverage: CoverageContext = backend.app.coverage;
    const ctx = { ...coverage, plans: haltingAfterFirstRead(coverage.plans, () => call('POST', `/coverage-plans/${plan.id}/halt`)) };
    const written = await putSchedule(ctx, accountId, plan.id, { outerAxis: 'combination', bufferTarget: { kind: 'bounded', runs: 4 } });
    expect(written).toEqual({ outerAxis: 'combination', paused: true, autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 4 } });
    expect(await call('GET', `/coverage-plans/${plan.id}/schedule`)).toMatchObject({ paused: true, outerAxis: 'combination' });
  });

  it('PUT /coverage-plans/{id} with a schedule naming no `paused` keeps the pause', async () => {
    const plan = await call('POST', '/coverage-plans', PLAN);
    const coverage: CoverageContext = backend.app.coverage;
    const ctx = { ...coverage, plans: haltingAfterFirstRead(coverage.plans, () => call('POST', `/coverage-plans/${plan.id}/halt`)) };
    const written = await updatePlan(ctx, accountId, plan.id, { ...PLAN, name: 'renamed', schedule: { autoTopUp: false } });
    expect(written).toMatchObject({ name: 'renamed', paused: true, autoTopUp: false });
  });

  it("PUT /ladders/{id}/schedule and PUT /ladders/{id} without `paused` keep the halt's pause", async () => {
    for (const write of ['schedule', 'ladder'] as const) {
      const ladder = await call('POST', '/ladders', LADDER);
      expect(ladder.paused).toBe(false);
      const ladders: LadderContext = backend.app.ladders;
      const ctx = { ...ladders, ladders: haltingAfterFirstRead(ladders.ladders, () => call('POST', `/ladders/${ladder.id}/halt`)) };
      const written = write === 'schedule'
        ? await putLadderSchedule(ctx, accountId, ladder.id, { outerAxis: 'combination' })
        : await updateLadder(ctx, accountId, ladder.id, { ...LADDER, rungs: ladder.rungs, schedule: { outerAxis: 'combination' } });
      expect(written, write).toMatchObject({ outerAxis: 'combination', paused: true });
      expect(await call('GET', `/ladders/${ladder.id}/schedule`), write).toMatchObject({ paused: true, outerAxis: 'combination', autoTopUp: true });
    }
  });

  it('a schedule write that names `paused` still writes it, and another account cannot write it', async () => {
    const plan = await call('POST', '/coverage-plans', PLAN);
    expect(await call('GET', `/coverage-plans/${plan.id}/schedule`)).toMatchObject({ paused: false });
    expect(await putSchedule(backend.app.coverage, accountId, plan.id, { paused: true })).toMatchObject({ paused: true, autoTopUp: true, outerAxis: 'case' });
    const other = await backend.auth.register('someone-else');
    await expect(putSchedule(backend.app.coverage, other.account.id, plan.id, { paused: false })).rejects.toMatchObject({ statusCode: 404 });
    expect(await call('GET', `/coverage-plans/${plan.id}/schedule`)).toMatchObject({ paused: true });
  });
});
