/**
 * A halt wins over a top-up in progress (issue 34 item 7). The top-up is slow for a real
 * reason: each model it launches lacks a list price, which the model rule fetches from the
 * routing provider (a fake on loopback, answering slowly) before the cell can be prepared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

const UNPRICED = [FAKE_SLUGS.allRates, FAKE_SLUGS.noCachedRate];
let router: FakeRouter;
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let token: string;

beforeAll(async () => {
  router = await startFakeRouter();
  backend = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test' });
  // Curated without a list price: a launch fetches one first.
  for (const slug of UNPRICED) await backend.app.models.create({ slug });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'race', version: 'v1.0.0' }]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  token = (await backend.auth.register('halter')).token;
});
afterAll(async () => {
  await backend?.close();
  await router?.close();
});

describe('a halt racing a slow top-up', () => {
  it('pauses first; the top-up stops at its next step and enqueues nothing; nothing of the plan is left in flight', async () => {
    const plan = (await http.post('/coverage-plans', token, {
      name: 'race', runsPerCell: 2, cases: [{ slug: 'race', version: 'v1.0.0', variant: 'base' }],
      combos: UNPRICED.map((model) => ({ harness: 'claude', model })), schedule: { bufferTarget: { kind: 'unbounded' } },
    })).body;
    await router.slow(300);
    const asked = router.requests.length;
    const topUp = http.post(`/coverage-plans/${plan.id}/topup`, token);
    // The top-up holds the plan's lock and waits on the provider for its first cell's model.
    await until(() => router.requests.length > asked, 10_000, 'the top-up to ask the routing provider for a price');
    const halt = await http.post(`/coverage-plans/${plan.id}/halt`, token);
    const answer = (await topUp).body;

    expect(answer).toEqual({ bufferTarget: { kind: 'unbounded' }, enqueued: 0, cells: [], unlaunchable: [], skipped: 'paused' });
    expect(halt.body).toEqual({ canceled: 0, includedActive: false });
    expect(await backend.store.db.selectFrom('jobs').where('origin', '=', `plan:${plan.id}`).select((eb) => eb.fn.countAll<number>().as('rows')).executeTakeFirstOrThrow()).toEqual({ rows: 0 });
    expect((await http.get(`/coverage-plans/${plan.id}/schedule`, token)).body.paused).toBe(true);
    expect((await http.get(`/coverage-plans/${plan.id}/coverage`, token)).body.cells.map((cell: { inFlight: number }) => cell.inFlight)).toEqual([0, 0]);
    await router.normal();
  });
});
