import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planOrigin, requirePlan } from '../../src/coverage/coverage-plans.js';
import { measurePlan } from '../../src/coverage/plan-matrix.js';
import { topUpOwner } from '../../src/coverage/owner-actions.js';
import { claimNext, completeClaimed } from '../helpers/dispatcher.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'review-race-dispatch';
const CASES = ['r1', 'r2', 'r3', 'r4', 'r5'];
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let reviewer: string;
let accountId: string;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: ['vendor/m1'] });
  await seedCatalog(backend.store, backend.dataDir, CASES.map((slug) => ({ slug, version: 'v1.0.0', domains: ['gameplay'] })));
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  const registered = await backend.auth.register('reviewer');
  reviewer = registered.token;
  accountId = registered.account.id;
});
afterAll(async () => {
  await backend?.close();
});

const review = (runId: string) => http.post(`/runs/${runId}/reviews`, reviewer, { ratings: [{ domain: 'gameplay', rating: 'great' }], writeup: 'Fine.' });
const inFlightOf = async (origin: string) =>
  ((await http.get('/jobs/active')).body.jobs as Array<{ origin: string | null }>).filter((job) => job.origin === origin).length;

/** A promise and the function that settles it, so a top-up can be kept inside its owner's lock on demand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('auto top-ups after reviews that land while the owner’s lock is busy', () => {
  it('are not dropped: the holder tops up again before it lets go, so a buffer of 1 refills after each review', async () => {
    const created = await http.post('/coverage-plans', reviewer, {
      name: 'Small buffer', runsPerCell: 1, combos: [{ harness: 'claude', model: 'vendor/m1' }],
      cases: CASES.map((slug) => ({ slug, version: 'v1.0.0', variant: 'base' })),
      schedule: { autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 2 } },
    });
    expect(created.status).toBe(201);
    const planId = created.body.id as string;
    const origin = planOrigin(planId);
    expect((await http.post(`/coverage-plans/${planId}/topup`, reviewer)).body).toMatchObject({ enqueued: 2 });
    const runIds: string[] = [];
    for (let i = 0; i < 2; i++) runIds.push(await completeClaimed(http, (await claimNext(http, SERVICE))!));
    // Two completed runs wait on review under a buffer of 1: occupancy 2, nothing in flight.
    expect((await http.put(`/coverage-plans/${planId}/schedule`, reviewer, { autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 1 } })).status).toBe(200);
    expect(await inFlightOf(origin)).toBe(0);

    // A top-up holds the plan's lock, having measured before the reviews (occupancy 2: no room).
    const ctx = backend.app.coverage;
    const measured = gate();
    const resume = gate();
    const holding = topUpOwner(ctx, {
      accountId, origin,
      async measure() {
        const owner = await measurePlan(ctx, accountId, await requirePlan(ctx, accountId, planId));
        measured.open();
        await resume.opened;
        return owner;
      },
    }, 'coverage plan');
    await measured.opened;
    // Both reviews answer while the lock is held: each follow-up finds it busy.
    const answers = await Promise.all(runIds.map(review));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(await inFlightOf(origin)).toBe(0);
    resume.open();
    expect(await holding).toMatchObject({ outstanding: 2, enqueued: 0 });
    // The holder saw the follow-ups' mark and topped up again before letting go: the buffer is full.
    expect(await inFlightOf(origin)).toBe(1);

    // And again after the next review, with the lock free.
    const next = await completeClaimed(http, (await claimNext(http, SERVICE))!);
    expect(await inFlightOf(origin)).toBe(0);
    expect((await review(next)).status).toBe(200);
    expect(await inFlightOf(origin)).toBe(1);
    expect((await http.get(`/coverage-plans/${planId}/coverage`, reviewer)).body).toMatchObject({ runsUnreviewed: 0, runsOutstanding: 1 });
  });
});
