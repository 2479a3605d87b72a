import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const MODEL = 'anthropic/claude-sonnet-4';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'claude', model: MODEL };
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let alice: string;
let bob: string;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: [MODEL, 'openai/gpt-5', 'qwen/qwen3'] });
  await seedCatalog(backend.store, backend.dataDir, [
    { slug: 'carom', version: 'v1.1.0', engines: ['simple-2d'], variants: ['base', 'hard'] },
    { slug: 'grace-period', version: 'v1.0.0', testType: 'game-jam' },
    { slug: 'carom', version: 'v2.0.0', experimental: true },
  ]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  alice = (await backend.auth.register('alice')).token;
  bob = (await backend.auth.register('bob')).token;
});
afterAll(() => backend.close());

const refused = async (body: object) => {
  const answer = await http.post('/jobs', alice, body);
  return [answer.status, answer.body.error?.message] as const;
};

describe('launch validation', () => {
  it('refuses what the catalog, engines, harnesses and the model rule do not allow', async () => {
    expect(await refused({ ...launch, testCase: 'pong' })).toEqual([404, 'No test case "pong".']);
    expect(await refused({ ...launch, version: 'v9.0.0' })).toEqual([404, 'Test case carom has no ingested version v9.0.0.']);
    // Experimental, and this deployment does not offer experimental versions: a runner could not resolve it.
    expect(await refused({ ...launch, version: 'v2.0.0' })).toEqual([404, 'Test case carom has no ingested version v2.0.0.']);
    expect(await refused({ ...launch, engine: 'unity' })).toEqual([400, 'engine "unity" is not a known engine (none, simple-2d, structured-2d, decoupled-2d, decoupled-3d).']);
    expect(await refused({ ...launch, engine: 'decoupled-3d' })).toEqual([400, 'Test case carom v1.1.0 does not declare engine "decoupled-3d" (it declares none, simple-2d).']);
    expect(await refused({ ...launch, harness: 'aider' })).toEqual([400, 'harness "aider" is not one of claude, codex, cline, antigravity, goose, kilo, opencode, pi, gg.']);
    expect(await refused({ ...launch, variant: 'easy' })).toEqual([400, 'Test case carom v1.1.0 has no variant "easy".']);
    expect(await refused({ ...launch, model: 'acme/unpriced' })).toEqual([422, 'The model catalog has no entry for acme/unpriced; add it to the catalog before launching it.']);
    expect(await refused({ ...launch, model: undefined })).toEqual([400, 'body.model is required.']);
    expect((await http.post('/jobs', undefined, launch)).status).toBe(401);
    expect((await http.get('/jobs/active')).body.jobs).toEqual([]);
  });

  it('accepts declared engines and none, and stores the launch body verbatim', async () => {
    const body = { ...launch, engine: 'simple-2d', orchestrator: 'ralph', maxRuntimeSeconds: 600 };
    expect((await http.post('/jobs', alice, body)).status).toBe(202);
    expect((await http.post('/jobs', alice, { ...launch, engine: 'none' })).status).toBe(202);
    const first = await http.post('/jobs/next', SERVICE);
    expect(first.body.request).toEqual(body);
    await http.post('/jobs/cancel-all', alice);
  });

  it('keeps batch answers aligned by index and enqueues the good entries in order', async () => {
    const answer = await http.post('/jobs/batch', alice, {
      runs: [launch, { ...launch, model: 'acme/unpriced' }, { ...launch, harness: 42 }, { ...launch, variant: 'hard' }],
    });
    expect(answer.status).toBe(200);
    const [a, b, c, d] = answer.body.jobs;
    expect(a).toEqual({ jobId: expect.any(String) });
    // The console reads a refusal's message as a string under `error`, the code beside it.
    expect(b).toEqual({ error: expect.stringContaining('acme/unpriced'), code: 'unprocessable' });
    expect(c).toEqual({ error: 'runs[2].harness expected string.', code: 'bad_request' });
    expect(d).toEqual({ jobId: expect.any(String) });
    const active = (await http.get('/jobs/active')).body.jobs.map((job: { runId: string }) => job.runId);
    expect(active).toEqual([a.jobId, d.jobId]);
    await http.post('/jobs/cancel-all', alice);
  });
});

describe('holds', () => {
  it('holds a capped harness in pending and releases in original order when a slot frees', async () => {
    expect((await http.put('/harness-config/claude', alice, { maxParallelism: 1 })).body.harnesses).toContainEqual({ slug: 'claude', name: 'Claude Code', maxParallelism: 1 });
    const ids = (await http.post('/jobs/batch', alice, { runs: [launch, launch, launch, { ...launch, harness: 'codex', model: 'openai/gpt-5' }] })).body.jobs.map((j: { jobId: string }) => j.jobId);
    const first = (await http.post('/jobs/next', SERVICE)).body;
    expect(first.jobId).toBe(ids[0]);
    expect((await http.post('/jobs/next', SERVICE)).body.jobId).toBe(ids[3]);
    expect((await http.get(`/jobs/${ids[1]}`)).body.state).toBe('pending');
    expect((await http.get(`/jobs/${ids[2]}`)).body.state).toBe('pending');
    expect((await http.post('/jobs/next', SERVICE)).status).toBe(204);

    await http.post(`/jobs/${ids[0]}/status`, first.jobToken, { state: 'failed', detail: 'boom' });
    expect((await http.get(`/jobs/${ids[1]}`)).body.state).toBe('queued');
    expect((await http.post('/jobs/next', SERVICE)).body.jobId).toBe(ids[1]);
    expect((await http.put('/harness-config/claude', alice, { maxParallelism: null })).status).toBe(200);
    expect((await http.post('/jobs/next', SERVICE)).body.jobId).toBe(ids[2]);
    expect((await http.get('/harness-config')).body.harnesses).toContainEqual({ slug: 'claude', name: 'Claude Code', maxParallelism: null });
    await http.post('/jobs/cancel-all', alice);
  });

  it('runs one game jam per model at a time', async () => {
    const jam = { ...launch, testCase: 'grace-period', version: 'v1.0.0' };
    const ids = (await http.post('/jobs/batch', alice, { runs: [jam, { ...jam, harness: 'codex' }, { ...jam, model: 'qwen/qwen3' }] })).body.jobs.map((j: { jobId: string }) => j.jobId);
    const first = (await http.post('/jobs/next', SERVICE)).body;
    expect(first.jobId).toBe(ids[0]);
    expect((await http.post('/jobs/next', SERVICE)).body.jobId).toBe(ids[2]);
    expect((await http.get(`/jobs/${ids[1]}`)).body.state).toBe('pending');
    await http.post(`/jobs/${ids[0]}/cancel`, alice);
    expect((await http.post('/jobs/next', SERVICE)).body.jobId).toBe(ids[1]);
    await http.post('/jobs/cancel-all', alice);
  });

  it('validates harness config writes', async () => {
    expect((await http.put('/harness-config/aider', alice, { maxParallelism: 2 })).status).toBe(404);
    expect((await http.put('/harness-config/claude', alice, { maxParallelism: 0 })).status).toBe(400);
    expect((await http.put('/harness-config/claude', undefined, { maxParallelism: 2 })).status).toBe(401);
  });
});

describe('gg', () => {
  const capabilitySet = { root: 'main', profiles: { main: { capabilities: ['code'] } } };

  it('keeps configurations per account', async () => {
    const created = await http.post('/gg/configs', alice, { name: 'fast', capabilitySet, slotModels: { root: MODEL } });
    expect(created.status).toBe(201);
    const { id } = created.body;
    expect((await http.get('/gg/configs', alice)).body.configs).toEqual([{ id, name: 'fast', capabilitySet, slotModels: { root: MODEL } }]);
    expect((await http.get(`/gg/configs/${id}`, bob)).status).toBe(404);
    expect((await http.put(`/gg/configs/${id}`, bob, { name: 'x', capabilitySet, slotModels: {} })).status).toBe(404);
    expect((await http.put(`/gg/configs/${id}`, alice, { name: 'faster', capabilitySet, slotModels: { root: MODEL } })).body.name).toBe('faster');
    expect((await http.delete(`/gg/configs/${id}`, bob)).status).toBe(404);
    expect((await http.delete(`/gg/configs/${id}`, alice)).status).toBe(204);
    expect((await http.get(`/gg/configs/${id}`, alice)).status).toBe(404);
  });

  it('launches from the account\'s preset, records its current name, and admits every slot model', async () => {
    const { id } = (await http.post('/gg/configs', alice, { name: 'duo', capabilitySet, slotModels: { root: MODEL, helper: 'openai/gpt-5' } })).body;
    expect((await http.post('/gg/runs', bob, { testCase: 'carom', version: 'v1.1.0', presetId: id })).status).toBe(400);
    expect((await http.post('/gg/runs', alice, { testCase: 'carom', version: 'v1.1.0', presetId: id, slotModels: { root: 'acme/unpriced' } })).status).toBe(422);
    const ack = await http.post('/gg/runs', alice, { testCase: 'carom', version: 'v1.1.0', presetId: id });
    expect(ack.status).toBe(202);
    const claimed = (await http.post('/jobs/next', SERVICE)).body;
    expect(claimed.jobId).toBe(ack.body.jobId);
    expect(claimed.request).toMatchObject({ harness: 'gg', model: MODEL, variant: 'base', ggCapabilitySet: capabilitySet, ggSlotModels: { root: MODEL, helper: 'openai/gpt-5' } });
    const active = (await http.get('/jobs/active')).body.jobs;
    expect(active).toContainEqual(expect.objectContaining({ runId: ack.body.jobId, harnessSlug: 'gg', ggPreset: 'duo' }));

    const viaJobs = await http.post('/jobs', alice, { ...launch, harness: 'gg', presetId: id });
    expect(viaJobs.status).toBe(202);
    expect((await http.post('/jobs', alice, { ...launch, harness: 'gg' })).status).toBe(400);
    expect((await http.post('/jobs', alice, { ...launch, presetId: id })).status).toBe(400);
    expect((await http.post('/gg/runs', alice, { testCase: 'carom', version: 'v1.1.0', presetId: id, capabilitySet })).status).toBe(400);
    await http.post('/jobs/cancel-all', alice);
  });
});

describe('bounds', () => {
  it('refuses a zero runtime rather than reading it as unset', async () => {
    expect(await refused({ ...launch, maxRuntimeSeconds: 0 })).toEqual([400, 'body.maxRuntimeSeconds must be >= 1.']);
  });
});
