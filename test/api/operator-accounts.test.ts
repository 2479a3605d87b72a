import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const launch = { testCase: 'harbor', version: 'v1.0.0', variant: 'base', harness: 'claude', model: 'acme/coder' };

let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
const tokens: Record<'boss' | 'alice' | 'bob', string> = { boss: '', alice: '', bob: '' };

beforeAll(async () => {
  // Usernames are matched without case, as the auth service matches them.
  backend = await startTestBackend({ OPERATOR_ACCOUNTS: 'Boss, ops-bot', SERVICE_TOKEN: SERVICE, QUEUE_DASHBOARD: 'true' }, { pricedModels: [launch.model] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'harbor', version: 'v1.0.0' }]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  for (const name of Object.keys(tokens) as Array<keyof typeof tokens>) tokens[name] = (await backend.auth.register(name)).token;
}, 60_000);
afterAll(() => backend?.close());

const launchAs = async (who: keyof typeof tokens) => {
  const answer = await http.post('/jobs', tokens[who], launch);
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body.jobId as string;
};
const expectForbidden = (answer: { status: number; body: { error: { code: string; message: string } } }, what: string) => {
  expect(answer.status, what).toBe(403);
  expect(answer.body.error, what).toEqual({ code: 'forbidden', message: expect.stringContaining('OPERATOR_ACCOUNTS') });
};

describe('OPERATOR_ACCOUNTS', () => {
  it('leaves the queue sweeps to operators', async () => {
    const waiting = await launchAs('alice');
    for (const sweep of ['cancel-waiting', 'cancel-active', 'cancel-all']) expectForbidden(await http.post(`/jobs/${sweep}`, tokens.alice), sweep);
    expect((await http.get(`/jobs/${waiting}`)).body.state).toBe('queued');
    const swept = await http.post('/jobs/cancel-waiting', tokens.boss);
    expect(swept.status).toBe(200);
    expect(swept.body.canceled).toBeGreaterThanOrEqual(1);
    expect((await http.get(`/jobs/${waiting}`)).body.state).toBe('canceled');
  });

  it('leaves harness caps to operators, by PUT and by POST', async () => {
    expectForbidden(await http.put('/harness-config/claude', tokens.alice, { maxParallelism: 1 }), 'PUT');
    expectForbidden(await http.post('/harness-config/claude', tokens.alice, { maxParallelism: 1 }), 'POST');
    const listed = await http.get('/harness-config');
    expect(listed.body.harnesses.find((harness: { slug: string }) => harness.slug === 'claude').maxParallelism).toBeNull();
    expect((await http.put('/harness-config/claude', tokens.boss, { maxParallelism: null })).status).toBe(200);
  });

  it('leaves publishing and model catalog writes to operators', async () => {
    const jobId = await launchAs('bob');
    const claimed = (await http.post('/jobs/next', SERVICE)).body as { jobId: string; jobToken: string };
    expect(claimed.jobId).toBe(jobId);
    expect((await http.post(`/jobs/${jobId}/status`, claimed.jobToken, { state: 'failed', record: runRecord({ id: 'run-public', state: 'hung' }) })).status).toBe(204);
    expectForbidden(await http.post('/runs/run-public/publish', tokens.alice), 'publish');
    expect((await http.get('/runs/run-public')).body.published).toBe(false);
    expect((await http.post('/runs/run-public/publish', tokens.boss)).status).toBe(202);

    const entry = { slug: 'acme/other', listPriceInputPerMtok: 1, listPriceCachedInputPerMtok: 0.1, listPriceOutputPerMtok: 2, listPriceAsOf: '2026-11-01' };
    expectForbidden(await http.post('/models', tokens.alice, entry), 'create');
    expectForbidden(await http.put(`/models/${launch.model}`, tokens.alice, { listPriceInputPerMtok: 9, listPriceCachedInputPerMtok: 0.9, listPriceOutputPerMtok: 9, listPriceAsOf: '2026-11-02' }), 'update');
    expectForbidden(await http.delete(`/models/${launch.model}`, tokens.alice), 'delete');
    expect((await http.get('/models')).body.models.map((model: { slug: string }) => model.slug)).not.toContain('acme/other');
    expect((await http.post('/models', tokens.boss, entry)).status).toBe(201);
    expect((await http.delete('/models/acme/other', tokens.boss)).status).toBe(200);
  });

  it('leaves run deletes to operators', async () => {
    const jobId = await launchAs('alice');
    const claimed = (await http.post('/jobs/next', SERVICE)).body as { jobId: string; jobToken: string };
    expect(claimed.jobId).toBe(jobId);
    const record = runRecord({ id: 'run-kept', state: 'hung' });
    expect((await http.post(`/jobs/${jobId}/status`, claimed.jobToken, { state: 'failed', record })).status).toBe(204);
    expectForbidden(await http.delete('/runs/run-kept', tokens.alice), 'delete');
    expect((await http.get('/runs/run-kept')).status).toBe(200);
    expect((await http.delete('/runs/run-kept', tokens.boss)).status).toBe(200);
  });

  it('lets only operators into the queue dashboard', async () => {
    const board = (username: string) =>
      backend.app.inject({ method: 'GET', url: '/admin/queues/api/queues', headers: { authorization: `Basic ${Buffer.from(`${username}:correct horse battery`).toString('base64')}` } });
    const refused = await board('alice');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: { code: 'forbidden', message: expect.stringContaining('OPERATOR_ACCOUNTS') } });
    expect((await board('boss')).statusCode).toBe(200);
  });

  it('lets an account cancel its own jobs, and only an operator another account\'s', async () => {
    const alices = await launchAs('alice');
    const bobs = await launchAs('bob');
    const refused = await http.post(`/jobs/${alices}/cancel`, tokens.bob);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({ code: 'forbidden', message: `Job ${alices} was launched by another account; only an operator (OPERATOR_ACCOUNTS) may cancel it.` });
    expect((await http.get(`/jobs/${alices}`)).body.state).toBe('queued');
    expect((await http.post(`/jobs/${alices}/cancel`, tokens.alice)).status).toBe(200);
    expect((await http.post(`/jobs/${bobs}/cancel`, tokens.boss)).status).toBe(200);
    // Unknown jobs stay 404, whoever asks.
    expect((await http.post('/jobs/no-such-job/cancel', tokens.bob)).status).toBe(404);
  });
});
