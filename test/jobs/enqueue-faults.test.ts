import { createHash } from 'node:crypto';
import { inject } from 'vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { planOrigin } from '../../src/coverage/coverage-plans.js';
import { loadLuaScript } from '../../src/queue/load-lua-script.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startRedisFaultProxy, type RedisFaultProxy } from '../helpers/redis-fault-proxy.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'enqueue-faults';
const MODELS = ['vendor/f1', 'vendor/f2', 'vendor/f3', 'vendor/f4'];
const CASES = ['f1', 'f2', 'f3', 'f4', 'f5'];
const launch = { testCase: 'f1', version: 'v1.0.0', variant: 'base', harness: 'claude', model: MODELS[0] };
const ADD_SCRIPT = loadLuaScript('add-jobs.lua');
/**
 * The add script's call as it goes over the wire, the cue for the proxy's cuts: ioredis sends
 * a connection's first call of a script whole (EVAL), and its SHA after (EVALSHA).
 */
const ADD = [ADD_SCRIPT.slice(0, 200), createHash('sha1').update(ADD_SCRIPT).digest('hex')];

let proxy: RedisFaultProxy;
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let token: string;

beforeAll(async () => {
  proxy = await startRedisFaultProxy(inject('redisUrl'));
  // Every connection of the app goes through the proxy; only those carrying a cue are cut.
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, REDIS_URL: proxy.url }, { pricedModels: MODELS });
  await seedCatalog(backend.store, backend.dataDir, CASES.map((slug) => ({ slug, version: 'v1.0.0' })));
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  token = (await backend.auth.register('faulty')).token;
});
afterEach(async () => {
  expect((await http.post('/jobs/cancel-all', token)).status).toBe(200);
});
afterAll(async () => {
  await backend.close();
  await proxy.close();
});

const claimable = () => backend.app.runJobs.queue.waitingCount();
const statesOf = async (origin: string) => Object.fromEntries(
  (await backend.store.db.selectFrom('jobs').select(['state', (eb) => eb.fn.countAll<number>().as('n')]).where('origin', '=', origin).groupBy('state').execute())
    .map(({ state, n }) => [state, n]),
);

async function createPlan(runsPerCell: number) {
  const answer = await http.post('/coverage-plans', token, {
    name: `plan ${runsPerCell}`, runsPerCell, schedule: { bufferTarget: { kind: 'unbounded' } },
    combos: MODELS.map((model) => ({ harness: 'claude', model })),
    cases: CASES.map((slug) => ({ slug, version: 'v1.0.0', variant: 'base' })),
  });
  expect(answer.status).toBe(201);
  return answer.body.id as string;
}

describe('a Redis add whose outcome the API did not hear', () => {
  it('keeps a batch whose add Redis applied before the reply was lost: 200, every job queued once', async () => {
    const before = proxy.cuts;
    proxy.cutOn(ADD, 'reply');
    const answer = await http.post('/jobs/batch', token, { runs: [launch, launch, launch] });
    expect(proxy.cuts).toBe(before + 1);
    expect(answer.status).toBe(200);
    const ids: string[] = answer.body.jobs.map((job: { jobId: string }) => job.jobId);
    for (const id of ids) expect((await http.get(`/jobs/${id}`)).body.state).toBe('queued');
    expect(await claimable()).toBe(3);
    const claimed: string[] = [];
    for (let claim = await backend.app.runJobs.queue.claim('hash'); claim.claimed; claim = await backend.app.runJobs.queue.claim('hash')) claimed.push(claim.claimed.id);
    expect(claimed.sort()).toEqual([...ids].sort());
  });

  it('queues the rest of a partly applied chunked add again, so a batch of 600 is queued whole, once', async () => {
    const before = proxy.cuts;
    // 600 jobs go in two script calls (500, 100): the second is cut before Redis sees it.
    proxy.cutOn(ADD, 'request', { skip: 1 });
    const answer = await http.post('/jobs/batch', token, { runs: Array.from({ length: 600 }, () => launch) });
    expect(proxy.cuts).toBe(before + 1);
    expect(answer.status).toBe(200);
    expect(new Set(answer.body.jobs.map((job: { jobId: string }) => job.jobId)).size).toBe(600);
    expect(await claimable()).toBe(600);
  });

  it('answers a batch whose add Redis took only in part entry by entry: the queued jobs, and refusals for the rest', async () => {
    // The second chunk is cut, and so is the add of its 100 jobs tried again.
    proxy.cutOn(ADD, 'request', { skip: 1, times: 2 });
    const answer = await http.post('/jobs/batch', token, { runs: Array.from({ length: 600 }, () => launch) });
    expect(answer.status).toBe(200);
    const jobs = answer.body.jobs as Array<{ jobId?: string; code?: string }>;
    expect(jobs.slice(0, 500).every((job) => job.jobId)).toBe(true);
    expect(jobs.slice(500)).toEqual(new Array(100).fill({ error: 'The job queue (Redis) is unavailable right now; retry in a few seconds.', code: 'queue_unavailable' }));
    for (const job of jobs.slice(0, 500)) expect((await backend.app.runJobs.jobs.get(job.jobId!))!.state).toBe('queued');
    expect(await claimable()).toBe(500);
  });

  it('fails only the rows Redis lacks, and a retried top-up of a plan wanting 600 ends with 600 claimable jobs', async () => {
    const planId = await createPlan(30);
    const origin = planOrigin(planId);
    // The second chunk is cut, and so is the add of the 100 missing jobs tried again.
    proxy.cutOn(ADD, 'request', { skip: 1, times: 2 });
    const first = await http.post(`/coverage-plans/${planId}/topup`, token);
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe('queue_unavailable');
    expect(await statesOf(origin)).toEqual({ queued: 500, failed: 100 });
    expect(await claimable()).toBe(500);

    const second = await http.post(`/coverage-plans/${planId}/topup`, token);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ outstanding: 500, enqueued: 100 });
    expect(await statesOf(origin)).toEqual({ queued: 600, failed: 100 });
    expect(await claimable()).toBe(600);
  });
});
