/**
 * Conformance: `GET /models/{slug}/candidates` on routing-provider listings served by the fake
 * router over loopback, with the answers the original system's candidate filter gives on them
 * (TheClockwyrks/TheTestCabinet: crates/core/src/pricing.candidates.rs `provider_candidates`,
 * crates/backend/src/api/model_candidates.rs `CatalogCandidates::of`/`build`, and
 * crates/backend/src/stats.rs `provider_fault_rates`). Every expected figure is written out by
 * hand from those functions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeRouter, type FakeRouter, type FakeRouterModel } from '../fakes/fake-router.js';
import type { WireEndpoint } from '../fakes/fake-router-models.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const TOOLS = ['tools', 'tool_choice'];

/** One listed endpoint; prices USD per Mtok (written per token on the wire), undefined when unlisted. */
function offer(provider: string, quantization: string | null, input?: number, output?: number, cacheRead?: number): WireEndpoint {
  const perToken = (perMtok: number | undefined) => (perMtok === undefined ? {} : String(perMtok / 1e6));
  return {
    name: `${provider} | ${provider.toLowerCase()}`,
    provider_name: provider,
    tag: provider.toLowerCase(),
    context_length: 131_072,
    quantization,
    pricing: {
      ...(input === undefined ? {} : { prompt: perToken(input) as string }),
      ...(output === undefined ? {} : { completion: perToken(output) as string }),
      ...(cacheRead === undefined ? {} : { input_cache_read: perToken(cacheRead) as string }),
    },
    max_completion_tokens: null,
    supported_parameters: TOOLS,
  };
}

const model = (id: string, endpoints: WireEndpoint[]): FakeRouterModel => ({
  id, name: id, description: 'A conformance listing.', context_length: 131_072, pricing: {}, endpoints,
});

/** No endpoint is the developer's (`orphan`); all priced, all at bf16. */
const NO_DEVELOPER = 'orphan/coder';
/** No endpoint declares a level; no endpoint is the developer's either. */
const NO_LEVEL = 'orphan/vague';
/** The developer (`Acme`) lists an output-less endpoint before a priced one. */
const DEVELOPER = 'acme/coder';

const listings = [
  model(NO_DEVELOPER, [offer('Together', 'bf16', 1, 2, 0.1), offer('Fireworks', 'bf16', 0.5, 1, 0.05)]),
  model(NO_LEVEL, [offer('Together', null, 1, 2, 0.1), offer('Fireworks', 'unknown', 0.5, 1, 0.05)]),
  model(DEVELOPER, [
    offer('Acme', 'bf16', 1),
    offer('Acme', ' BF16 ', 1, 4, 0.1),
    offer('Together', 'FP16', 0.75, 3, 0.05),
    offer('Pricey', 'bf16', 2, 8, 0.2),
    offer('Fireworks', null, 0.5, 2, 0.05),
  ]),
];

let router: FakeRouter;
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let token: string;

const candidates = (slug: string) => http.get(`/models/${slug}/candidates`, token);

beforeAll(async () => {
  router = await startFakeRouter({ models: listings });
  backend = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', RUN_WORKERS: 'false' });
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  token = (await backend.auth.register('conformance')).token;
  for (const slug of [NO_DEVELOPER, NO_LEVEL, DEVELOPER]) expect((await http.post('/models', token, { slug })).status).toBe(201);
});
afterAll(async () => {
  await backend?.close();
  await router?.close();
});

describe('candidates refuse as the original does', () => {
  it('refuses a model with no priced developer endpoint and no price ceiling on its entry', async () => {
    const response = await candidates(NO_DEVELOPER);
    expect(response.status).toBe(200);
    expect(response.body.candidates).toEqual([]);
    expect(response.body.nativeQuantization).toBe('bf16');
    expect(response.body.refusal).toMatch(/no price ceiling/);
  });

  it('refuses a model no endpoint declares a level for before looking for a ceiling', async () => {
    const response = await candidates(NO_LEVEL);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ candidates: [], nativeQuantization: null });
    expect(response.body.refusal).toMatch(/no native quantization/);
  });
});

describe('candidates are built as the original builds them', () => {
  it("takes the developer's first endpoint with both prices as the ceiling and lower-cases the levels", async () => {
    const response = await candidates(DEVELOPER);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      modelId: DEVELOPER,
      nativeQuantization: 'bf16',
      refusal: null,
      // Ceiling 1 in, 4 out (Acme's second endpoint): Pricey is above it; Fireworks declares no level.
      candidates: [
        { provider: 'Acme', quantization: 'bf16', developer: true, inputPrice: 1, outputPrice: 4, cacheReadPrice: 0.1, faultRate: null },
        { provider: 'Together', quantization: 'fp16', developer: false, inputPrice: 0.75, outputPrice: 3, cacheReadPrice: 0.05, faultRate: null },
      ],
    });
  });

  it('names a missing level `unknown` when the quantization filter is off', async () => {
    expect((await http.put(`/models/${DEVELOPER}`, token, { name: 'Acme Coder', quantizationFilter: false })).status).toBe(200);
    try {
      const response = await candidates(DEVELOPER);
      expect(response.body.candidates.map((c: { provider: string; quantization: string }) => [c.provider, c.quantization])).toEqual([
        ['Acme', 'bf16'], ['Fireworks', 'unknown'], ['Together', 'fp16'],
      ]);
    } finally {
      expect((await http.put(`/models/${DEVELOPER}`, token, { name: 'Acme Coder', quantizationFilter: true })).status).toBe(200);
    }
  });

  it("reads fault rates from the slices whose own model is the routing id, the slug or an alias, whatever the run's model", async () => {
    expect((await http.put(`/models/${DEVELOPER}`, token, { name: 'Acme Coder', aliases: [{ slug: 'acme-coder-local', harnessFamily: 'opencode' }] })).status).toBe(200);
    const slice = (provider: string, modelId: string | null, calls: number, stalls: number) => ({
      provider, modelId, calls, tokens: { uncachedInput: 1, cachedInput: 0, output: 1, reasoning: 0 }, cost: { actual: 0, comparable: 0 },
      rejected: 0, turns: 1, working: 1, errors: {}, stalls, cacheMisses: 0,
    });
    const gg = (modelId: string, summary: Record<string, unknown>) => {
      const record = runRecord({ harness: 'gg', model: modelId });
      (record.subject as Record<string, unknown>).ggSummary = summary;
      return record;
    };
    // A run launched on another model whose worker slot ran this one: its Together slice counts (1 stall / 10 calls).
    await seedRun(backend, gg('other/root', {
      executionMode: 'responses_as_code',
      slotCosts: [{ slot: 'primary', modelId: 'other/root' }, { slot: 'worker', modelId: DEVELOPER }],
      providerStats: [slice('Together', DEVELOPER, 10, 1), slice('Acme', 'other/root', 10, 10)],
    }));
    // A run under the alias whose only slice names no model: Acme's, 1 stall / 4 calls.
    await seedRun(backend, gg('acme-coder-local', { executionMode: 'responses_as_code', providerStats: [slice('Acme', null, 4, 1)] }));
    const response = await candidates(DEVELOPER);
    expect(response.body.candidates.map((c: { provider: string; faultRate: number | null }) => [c.provider, c.faultRate])).toEqual([
      ['Acme', 0.25], ['Together', 0.1],
    ]);
  });
});
