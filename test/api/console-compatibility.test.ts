import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

/**
 * The calls of the original web console that the contract leaves open, answered the way that
 * console reads them (open-points, "Console compatibility"). Each block failed before its fix.
 */
const SERVICE = 'dispatch-secret';
const MODEL = 'anthropic/claude-sonnet-4';
const HELPER = 'openai/gpt-5';
const launch = { testCase: 'skiff', version: 'v1.0.0', variant: 'base', harness: 'claude', model: MODEL };
const gg = { testCase: 'skiff', version: 'v1.0.0' };

let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let alice: string;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: [MODEL, HELPER] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'skiff', version: 'v1.0.0' }]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  alice = (await backend.auth.register('alice')).token;
});
afterAll(() => backend.close());

/** Claims the next job and answers the launch body the driver receives. */
const claimedRequest = async () => (await http.post('/jobs/next', SERVICE)).body.request;

describe('GET /runs?fields=summary without offset', () => {
  beforeAll(async () => {
    for (const id of ['one', 'two', 'three', 'four', 'five']) await seedRun(backend, runRecord({ id: `cursor-${id}` }));
  });

  it('is the cursor\'s first page, whose nextBefore walks every run', async () => {
    const seen: string[] = [];
    let url = '/runs?fields=summary&state=unpublished&limit=2';
    const first = await http.get(url);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['nextBefore', 'runs']);
    for (let body = first.body; ; body = (await http.get(url)).body) {
      seen.push(...body.runs.map((run: { id: string }) => run.id));
      if (!body.nextBefore) break;
      url = `/runs?fields=summary&state=unpublished&limit=2&before=${encodeURIComponent(body.nextBefore)}`;
    }
    expect(seen).toEqual(['cursor-five', 'cursor-four', 'cursor-three', 'cursor-two', 'cursor-one']);
  });

  it('gives the numbered page { runs, total } once offset is named', async () => {
    const page = (await http.get('/runs?fields=summary&state=unpublished&limit=2&offset=2')).body;
    expect(Object.keys(page).sort()).toEqual(['runs', 'total']);
    expect(page.runs.map((run: { id: string }) => run.id)).toEqual(['cursor-three', 'cursor-two']);
    expect(page.total).toBe(5);
  });
});

describe('POST /jobs/batch refusals', () => {
  it('carry the message as a string under error, with the code beside it', async () => {
    const answer = await http.post('/jobs/batch', alice, { runs: [{ ...launch, variant: 'night' }, launch] });
    expect(answer.status).toBe(200);
    expect(answer.body.jobs[0]).toEqual({ error: 'Test case skiff v1.0.0 has no variant "night".', code: 'bad_request' });
    expect(answer.body.jobs[1]).toEqual({ jobId: expect.any(String) });
    await http.post('/jobs/cancel-all', alice);
  });
});

describe('a gg capability set that binds its own models', () => {
  const agents = { agents: [{ name: 'root', modelId: MODEL, capabilities: ['code'] }, { name: 'scout', modelId: HELPER, capabilities: ['search'] }] };

  it('launches without slotModels, the root agent\'s model listing the run', async () => {
    const ack = await http.post('/gg/runs', alice, { ...gg, capabilitySet: agents });
    expect(ack.status, JSON.stringify(ack.body)).toBe(202);
    expect(await claimedRequest()).toMatchObject({ harness: 'gg', model: MODEL, ggCapabilitySet: agents, ggSlotModels: { root: MODEL, scout: HELPER } });
    await http.post('/jobs/cancel-all', alice);
  });

  it('lets slotModels override a binding by name', async () => {
    const ack = await http.post('/gg/runs', alice, { ...gg, capabilitySet: agents, slotModels: { root: HELPER } });
    expect(ack.status).toBe(202);
    expect(await claimedRequest()).toMatchObject({ model: HELPER, ggSlotModels: { root: HELPER, scout: HELPER } });
    await http.post('/jobs/cancel-all', alice);
  });

  it('reads the older slots form, its primary slot being the root', async () => {
    const slots = { slots: [{ slot: 'primary', modelId: HELPER }, { slot: 'critic', modelId: MODEL }] };
    const ack = await http.post('/gg/runs', alice, { ...gg, capabilitySet: slots });
    expect(ack.status).toBe(202);
    expect(await claimedRequest()).toMatchObject({ model: HELPER, ggSlotModels: { root: HELPER, critic: MODEL } });
    await http.post('/jobs/cancel-all', alice);
  });

  it('refuses a set that leaves an agent without a model, naming it, and an override naming no agent', async () => {
    const unbound = { agents: [{ name: 'root', modelId: MODEL, capabilities: [] }, { name: 'scout', capabilities: [] }] };
    const launched = await http.post('/gg/runs', alice, { ...gg, capabilitySet: unbound });
    expect(launched.status).toBe(400);
    expect(launched.body.error.message).toBe('capabilitySet agent "scout" has no model: give it a modelId or bind it in slotModels.');
    const stray = await http.post('/gg/runs', alice, { ...gg, capabilitySet: agents, slotModels: { critic: MODEL } });
    expect(stray.status).toBe(400);
    expect(stray.body.error.message).toBe('slotModels names "critic", which is no agent of the capability set (root, scout).');
    for (const [set, message] of [
      [{ agents: [] }, 'slotModels must bind a model to at least one launch slot (the root agent runs on it), or the capabilitySet must declare agents with their modelId.'],
      [{ slots: [{ slot: 'primary', modelId: MODEL }, { slot: 'root', modelId: HELPER }] }, 'capabilitySet.slots names the agent "root" twice.'],
      [{ agents: [{ modelId: MODEL }] }, 'capabilitySet.agents[0].name must be a non-empty string.'],
    ] as const) {
      const answer = await http.post('/gg/runs', alice, { ...gg, capabilitySet: set });
      expect([answer.status, answer.body.error.message]).toEqual([400, message]);
    }
    // Binding the missing agent in slotModels completes the set.
    expect((await http.post('/gg/runs', alice, { ...gg, capabilitySet: unbound, slotModels: { scout: HELPER } })).status).toBe(202);
    await http.post('/jobs/cancel-all', alice);
  });

  it('holds POST /jobs gg launches to the same bindings, so the model rule sees every bound model', async () => {
    const unpriced = { agents: [{ name: 'root', modelId: MODEL, capabilities: [] }, { name: 'scout', modelId: 'acme/unpriced', capabilities: [] }] };
    const refused = await http.post('/jobs', alice, { ...launch, harness: 'gg', ggCapabilitySet: unpriced });
    expect([refused.status, refused.body.error.message]).toEqual([422, expect.stringContaining('acme/unpriced')]);
    expect((await http.post('/jobs', alice, { ...launch, harness: 'gg', ggCapabilitySet: agents })).status).toBe(202);
    expect(await claimedRequest()).toMatchObject({ harness: 'gg', model: MODEL, ggSlotModels: { root: MODEL, scout: HELPER } });
    await http.post('/jobs/cancel-all', alice);
  });

  it('is saved as a configuration without slotModels and launches from it', async () => {
    const saved = await http.post('/gg/configs', alice, { name: 'pair', capabilitySet: agents });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expect(saved.body).toMatchObject({ name: 'pair', capabilitySet: agents, slotModels: {} });
    const refused = await http.put(`/gg/configs/${saved.body.id}`, alice, { name: 'pair', capabilitySet: { agents: [{ name: 'root' }] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('agent "root" has no model');
    expect((await http.post('/gg/runs', alice, { ...gg, presetId: saved.body.id })).status).toBe(202);
    expect(await claimedRequest()).toMatchObject({ model: MODEL, ggSlotModels: { root: MODEL, scout: HELPER } });
    await http.post('/jobs/cancel-all', alice);
  });
});

describe('harness caps', () => {
  it('are written with POST as with PUT, each answering the whole list with display names', async () => {
    const posted = await http.post('/harness-config/codex', alice, { maxParallelism: 3 });
    expect(posted.status).toBe(200);
    expect(posted.body.harnesses).toHaveLength(9);
    expect(posted.body.harnesses).toContainEqual({ slug: 'codex', name: 'Codex', maxParallelism: 3 });
    expect(posted.body.harnesses).toContainEqual({ slug: 'claude', name: 'Claude Code', maxParallelism: null });
    const put = await http.put('/harness-config/codex', alice, { maxParallelism: null });
    expect(put.body.harnesses).toContainEqual({ slug: 'codex', name: 'Codex', maxParallelism: null });
    expect((await http.get('/harness-config')).body).toEqual(put.body);
    expect((await http.post('/harness-config/aider', alice, { maxParallelism: 1 })).status).toBe(404);
    expect((await http.post('/harness-config/codex', undefined, { maxParallelism: 1 })).status).toBe(401);
  });
});
