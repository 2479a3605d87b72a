import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { ggRunRecord, slice } from './gg-run-records.js';

let router: FakeRouter;
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let token: string;

const QWEN = FAKE_SLUGS.candidates;

beforeAll(async () => {
  router = await startFakeRouter();
  backend = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', RUN_WORKERS: 'false' });
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  token = (await backend.auth.register('stats')).token;

  await seedRun(backend, ggRunRecord({
    model: QWEN,
    summary: {
      executionMode: 'responses_as_code',
      providerStats: [
        slice('Together', QWEN, { calls: 20, stalls: 1, cacheMisses: 1, errors: { model_timeout: 2, transpile_compile: 1 }, turns: 8, working: 5 }),
        slice('Alibaba', QWEN, { calls: 10, errors: { model_parse: 1 } }),
        slice(null, null, { calls: 2, cost: null }),
      ],
      errors: { turns: 20, errors: 5, modelApi: 1, transpile: 2, programFault: 1, sandboxLimit: 0, missingCompletion: 1, byType: { transpile_compile: 2, model_api: 1 } },
      toolCalls: null,
    },
  }));
  await seedRun(backend, ggRunRecord({
    model: QWEN,
    summary: {
      executionMode: 'tool_calling',
      // Two slices of one provider and model: the run still counts once for each.
      providerStats: [slice('Together', QWEN, { calls: 20 }), slice('Z.AI', QWEN, { calls: 5, stalls: 5 }), slice('Z.AI', QWEN, { calls: 5, stalls: 5 })],
      errors: { turns: 10, errors: 0, modelApi: 0, transpile: 0, programFault: 0, sandboxLimit: 0, missingCompletion: 0, byType: {} },
      toolCalls: 40,
      toolFailures: { 'invalid-argument': 3 },
    },
  }));
  // An older summary: no providerStats, no errors.turns, no execution mode.
  await seedRun(backend, ggRunRecord({ model: QWEN, summary: { errors: { transpile: 1 } } }));
  // Not gg: never scanned.
  await seedRun(backend, ggRunRecord({ model: QWEN, harness: 'claude', summary: {} }));
});
afterAll(async () => {
  await backend.close();
  await router.close();
});

describe('GET /stats/providers', () => {
  it('folds provider slices of stored gg runs, providers by calls, the null provider last', async () => {
    const response = await http.get('/stats/providers');
    expect(response.status).toBe(200);
    const { runsScanned, runsWithProviderData, providers, probes } = response.body;
    expect({ runsScanned, runsWithProviderData }).toEqual({ runsScanned: 3, runsWithProviderData: 2 });
    expect(providers.map((p: { provider: string | null }) => p.provider)).toEqual(['Together', 'Alibaba', 'Z.AI', null]);
    expect(providers[0]).toEqual({
      provider: 'Together',
      models: [{ modelId: QWEN, stats: expect.objectContaining({ runs: 2, calls: 40 }) }],
      totals: {
        // Comparable cost: 0.02 per slice.
        runs: 2, calls: 40, totalTokens: 1920, cost: 0.04, rejected: 0, turns: 13, working: 9,
        errors: { model_timeout: 2, transpile_compile: 1 }, stalls: 1, cacheMisses: 1,
      },
    });
    expect(providers[2]).toMatchObject({ provider: 'Z.AI', models: [{ stats: { runs: 1, calls: 10 } }], totals: { runs: 1, calls: 10, stalls: 10 } });
    // A slice naming no model is the single-model run's model's.
    expect(providers[3]).toMatchObject({ provider: null, models: [{ modelId: QWEN, stats: { calls: 2, cost: null } }] });
    expect(probes).toEqual([]);
  });
});

describe('GET /stats/model-accuracy', () => {
  it('splits code-mode turns and tool-calling calls per model, and counts runs it cannot attribute', async () => {
    const response = await http.get('/stats/model-accuracy');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      models: [{
        modelId: QWEN,
        // Per slice: turns 8 + 5 + 5, working 5 + 4 + 4, the slices' errors regrouped by kind.
        rac: { runs: 1, turns: 18, valid: 13, compile: 1, runtime: 0, modelErrors: 3, missing: 0, byType: { model_parse: 1, model_timeout: 2, transpile_compile: 1 }, approximateRuns: 0 },
        toolCalling: { runs: 1, calls: 40, ok: 37, failures: { 'invalid-argument': 3 }, runsWithoutCallTotals: 0 },
      }],
      // The older summary reads as tool calling with no total and no failures: it counts nowhere.
      unattributableRuns: 0,
    });
  });
});

describe('GET /models/{slug}/candidates', () => {
  const candidates = async (policy: Record<string, unknown>) => {
    const put = await http.put(`/models/${QWEN}`, token, { name: 'Qwen3 Coder', ...policy });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    return http.get(`/models/${encodeURIComponent(QWEN)}/candidates`, token);
  };

  beforeAll(async () => {
    expect((await http.post('/models', token, { slug: QWEN })).status).toBe(201);
  });

  it('keeps the native level within the developer’s rates, one per provider, the developer first, then by fault rate', async () => {
    const response = await candidates({});
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      modelId: QWEN,
      nativeQuantization: 'bf16',
      refusal: null,
      candidates: [
        { provider: 'Alibaba', quantization: 'bf16', developer: true, inputPrice: 1, outputPrice: 5, cacheReadPrice: 0.1, faultRate: 0.1 },
        // Together: (1 stall + 1 cache miss + 2 model_timeout) / 40 calls; Z.AI: 5 stalls / 5 calls.
        { provider: 'Together', quantization: 'bf16', developer: false, inputPrice: 0.8, outputPrice: 4, cacheReadPrice: 0.08, faultRate: 0.1 },
        { provider: 'Z.AI', quantization: 'bf16', developer: false, inputPrice: 0.75, outputPrice: 4, cacheReadPrice: 0.075, faultRate: 1 },
      ],
    });
  });

  it('lets unknown-quantization providers in by name, bans by provider key, and drops the filter when told', async () => {
    const policy = await candidates({ unknownQuantizationProviders: ['vague'], bannedProviders: ['z-ai'] });
    expect(policy.body.candidates.map((c: { provider: string }) => c.provider)).toEqual(['Alibaba', 'Vague', 'Together']);
    const open = await candidates({ quantizationFilter: false });
    expect(open.body.candidates.map((c: { provider: string }) => c.provider)).toContain('DeepInfra');
  });

  it('names the first filter that empties the list', async () => {
    const refusalOf = async (policy: Record<string, unknown>) => (await candidates(policy)).body;
    expect(await refusalOf({ nativeQuantization: 'fp4' })).toMatchObject({ candidates: [], nativeQuantization: 'fp4', refusal: 'No endpoint serves the model at its native quantization, fp4.' });
    expect((await refusalOf({ providerPin: 'Nobody', maxInputPrice: 0.1, maxOutputPrice: 0.5 })).refusal)
      .toBe("Every endpoint left costs more than the entry's price ceiling ($0.1 in, $0.5 out per Mtok).");
    expect((await refusalOf({ bannedProviders: ['Alibaba', 'Together', 'Z.AI'] })).refusal).toBe("Every endpoint left is on the entry's banned providers list.");
  });

  it('answers 401 without a token, 404 for a model the catalog or the provider lacks, 422 without a routing id', async () => {
    expect((await http.get(`/models/${QWEN}/candidates`)).status).toBe(401);
    expect((await http.get('/models/acme/nothing/candidates', token)).body.error.message).toBe('The model catalog has no entry acme/nothing.');
    await http.post('/models', token, { slug: FAKE_SLUGS.unlisted });
    expect((await http.get(`/models/${FAKE_SLUGS.unlisted}/candidates`, token))).toMatchObject({ status: 404, body: { error: { message: `The routing provider does not list the model ${FAKE_SLUGS.unlisted}.` } } });
    await http.post('/models', token, { slug: 'local-model' });
    expect((await http.get('/models/local-model/candidates', token)).status).toBe(422);
  });
});
