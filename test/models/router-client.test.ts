import { describe, expect, it } from 'vitest';
import { SECOND } from '../../src/time.js';
import { FAKE_SLUGS } from '../fakes/fake-router.js';
import { useFakeRouter } from '../helpers/fake-router-client.js';
import { httpError } from '../helpers/http-error.js';

const KEY = 'sk-or-v1-test-key-0123456789';

describe('router client', () => {
  const fake = useFakeRouter(KEY);
  const client = fake.client;

  describe('listModels', () => {
    it('lists every model with per-Mtok rates, sending the bearer key', async () => {
      const models = await client().listModels();
      expect(models.map((model) => model.slug)).toEqual([
        FAKE_SLUGS.allRates,
        FAKE_SLUGS.noCachedRate,
        FAKE_SLUGS.noOfficialEndpoint,
        FAKE_SLUGS.noOutputRate,
        FAKE_SLUGS.candidates,
      ]);
      expect(models[0]).toEqual({
        slug: FAKE_SLUGS.allRates,
        name: 'Anthropic: Claude Sonnet 4',
        description: 'A fast, capable model for coding and agents.',
        contextLength: 200_000,
        rates: { inputPerMtok: 3, cachedInputPerMtok: 0.3, outputPerMtok: 15 },
      });
      expect(fake.router.requests).toHaveLength(1);
      expect(fake.router.requests[0]).toMatchObject({ method: 'GET', path: '/api/v1/models' });
      expect(fake.router.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('accepts a base URL written with a trailing slash', async () => {
      await expect(client({ baseUrl: `${fake.router.url}/` }).listModels()).resolves.toHaveLength(5);
      expect(fake.router.requests[0]?.path).toBe('/api/v1/models');
    });
  });

  describe('getEndpoints', () => {
    it("returns the model's endpoints in the provider's order", async () => {
      const model = await client().getEndpoints(FAKE_SLUGS.noCachedRate);
      expect(model?.name).toBe('Meta: Llama 4 Maverick');
      expect(model?.endpoints.map((endpoint) => [endpoint.providerName, endpoint.tag, endpoint.quantization])).toEqual([
        ['DeepInfra', 'deepinfra/fp8', 'fp8'],
        ['Meta', 'meta/bf16', 'bf16'],
        ['DeepInfra', 'deepinfra/bf16', 'bf16'],
      ]);
      expect(model?.endpoints[1]?.rates).toEqual({ inputPerMtok: 0.25, cachedInputPerMtok: null, outputPerMtok: 0.95 });
      expect(fake.router.requests[0]?.path).toBe('/api/v1/models/meta-llama/llama-4-maverick/endpoints');
    });

    it('returns null for a slug the provider does not list', async () => {
      expect(await client().getEndpoints(FAKE_SLUGS.unlisted)).toBeNull();
    });

    it.each([
      ['no author', 'claude-sonnet-4'],
      ['an extra part', 'anthropic/claude/sonnet'],
      ['a parent reference', '../claude-sonnet-4'],
      ['an encoded dot-dot', 'anthropic/%2e%2e'],
      ['a query', 'anthropic/claude?x=1'],
      ['a URL', 'https://evil.example/x'],
      ['a backslash', 'anthropic\\claude'],
      ['an empty name', 'anthropic/'],
    ])('refuses a slug with %s as a 400 naming the field, before any request', async (_case, slug) => {
      const error = await httpError(client().getEndpoints(slug));
      expect(error.statusCode).toBe(400);
      expect(error.code).toBe('bad_request');
      expect(error.message).toMatch(/^slug must look like "author\/name"/);
      expect(fake.router.requests).toHaveLength(0);
    });

    it('keeps OpenRouter variant suffixes such as :free in the path', async () => {
      expect(await client().getEndpoints('meta-llama/llama-4-maverick:free')).toBeNull();
      expect(fake.router.requests[0]?.path).toBe('/api/v1/models/meta-llama/llama-4-maverick%3Afree/endpoints');
    });
  });

  describe('lookupListing', () => {
    it("reads all three rates from the author's own endpoint, not the first listed", async () => {
      expect(await client().lookupListing(FAKE_SLUGS.allRates)).toEqual({
        slug: FAKE_SLUGS.allRates,
        name: 'Claude Sonnet 4',
        provider: 'Anthropic',
        description: 'A fast, capable model for coding and agents.',
        officialProvider: 'Anthropic',
        inputPerMtok: 3,
        cachedInputPerMtok: 0.3,
        outputPerMtok: 15,
      });
    });

    it('matches meta-llama to the "Meta" endpoint and leaves an unlisted cached rate null', async () => {
      expect(await client().lookupListing(FAKE_SLUGS.noCachedRate)).toMatchObject({
        name: 'Llama 4 Maverick',
        provider: 'Meta',
        officialProvider: 'Meta',
        inputPerMtok: 0.25,
        cachedInputPerMtok: null,
        outputPerMtok: 0.95,
      });
    });

    it("leaves every rate null when only third parties serve the model, ignoring their prices", async () => {
      expect(await client().lookupListing(FAKE_SLUGS.noOfficialEndpoint)).toMatchObject({
        name: 'Hermes 4 70B',
        provider: 'Nous',
        officialProvider: null,
        inputPerMtok: null,
        cachedInputPerMtok: null,
        outputPerMtok: null,
      });
    });

    it('answers 404 naming the slug when the provider does not list it', async () => {
      const error = await httpError(client().lookupListing(FAKE_SLUGS.unlisted));
      expect(error.statusCode).toBe(404);
      expect(error.code).toBe('not_found');
      expect(error.message).toBe(`The routing provider does not list the model ${FAKE_SLUGS.unlisted}.`);
    });
  });

  describe('probeProviders', () => {
    it('lists each serving provider once, with its largest context', async () => {
      expect(await client().probeProviders(FAKE_SLUGS.noCachedRate)).toEqual([
        { name: 'DeepInfra', contextLength: 1_048_576 },
        { name: 'Meta', contextLength: 1_048_576 },
      ]);
      expect(await client().probeProviders(FAKE_SLUGS.noOfficialEndpoint)).toEqual([
        { name: 'Nebius', contextLength: 131_072 },
        { name: 'Together', contextLength: 65_536 },
      ]);
    });

    it('answers 404 for a slug the provider does not list', async () => {
      expect((await httpError(client().probeProviders(FAKE_SLUGS.unlisted))).statusCode).toBe(404);
    });
  });

  describe('chatCompletion', () => {
    const body = { model: FAKE_SLUGS.allRates, messages: [{ role: 'user', content: 'hi' }] };

    it('posts the body as JSON with the bearer key and returns the parsed completion', async () => {
      fake.router.onChat((request) => ({ id: 'gen-2', model: request.model, choices: [{ message: { content: 'hello' } }] }));
      const completion = await client().chatCompletion(body);
      expect(completion).toEqual({ id: 'gen-2', model: FAKE_SLUGS.allRates, choices: [{ message: { content: 'hello' } }] });
      expect(fake.router.requests[0]).toMatchObject({ method: 'POST', path: '/api/v1/chat/completions', body });
      expect(fake.router.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(fake.router.requests[0]?.headers['content-type']).toBe('application/json');
    });

    it('answers router_key_missing without calling the provider when no key is configured', async () => {
      const error = await httpError(client({ apiKey: undefined }).chatCompletion(body));
      expect(error.statusCode).toBe(503);
      expect(error.code).toBe('router_key_missing');
      expect(fake.router.requests).toHaveLength(0);
    });

    it("quotes the provider's reason when it rejects the request", async () => {
      const error = await httpError(client().chatCompletion({ ...body, model: FAKE_SLUGS.unlisted }));
      expect(error.code).toBe('upstream_unavailable');
      expect(error.message).toBe(
        `The routing provider at ${fake.router.url} answered POST /api/v1/chat/completions with HTTP 400: ` +
          `${FAKE_SLUGS.unlisted} is not a valid model ID.`,
      );
    });

    it('turns an error reported inside a 200 answer into a 502', async () => {
      fake.router.onChat(() => ({ error: { code: 502, message: 'Upstream provider overloaded.' } }));
      const error = await httpError(client().chatCompletion(body));
      expect(error.statusCode).toBe(502);
      expect(error.message).toBe(
        `The routing provider at ${fake.router.url} reported an error instead of a completion: Upstream provider overloaded.`,
      );
    });

    it('lets one call wait longer than the client timeout', async () => {
      await fake.router.slow(400);
      await expect(client({ timeoutMs: 100 }).chatCompletion(body, { timeoutMs: 3 * SECOND })).resolves.toHaveProperty('choices');
    });

    it("rethrows the caller's abort reason instead of a 502", async () => {
      await fake.router.slow(2 * SECOND);
      const controller = new AbortController();
      const call = client().chatCompletion(body, { signal: controller.signal });
      const reason = new Error('probe canceled');
      setTimeout(() => controller.abort(reason), 50);
      await expect(call).rejects.toBe(reason);
    });
  });
});
