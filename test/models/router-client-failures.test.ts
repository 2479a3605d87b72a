import { describe, expect, it } from 'vitest';
import type { HttpError } from '../../src/errors.js';
import { createRouterClient, type RouterClient } from '../../src/models/router-client.js';
import { SECOND } from '../../src/time.js';
import { FAKE_SLUGS } from '../fakes/fake-router.js';
import { listenOnLoopback } from '../fakes/loopback-server.js';
import { useFakeRouter } from '../helpers/fake-router-client.js';
import { httpError as expectHttpError } from '../helpers/http-error.js';

const KEY = 'sk-or-v1-secret-failure-key-987';

/** The shared check, plus: whatever went wrong, the key must not surface where a log or a client could read it. */
async function httpError(promise: Promise<unknown>): Promise<HttpError> {
  const error = await expectHttpError(promise);
  expect(error.message).not.toContain(KEY);
  expect(JSON.stringify({ message: error.message, cause: String(error.cause) })).not.toContain(KEY);
  return error;
}

/** Each client call, so every failure mode is checked on every kind of request. */
const CALLS: Array<[string, (client: RouterClient) => Promise<unknown>, string]> = [
  ['listModels', (client) => client.listModels(), 'GET /api/v1/models'],
  ['lookupListing', (client) => client.lookupListing(FAKE_SLUGS.allRates), 'GET /api/v1/models/anthropic/claude-sonnet-4/endpoints'],
  ['probeProviders', (client) => client.probeProviders(FAKE_SLUGS.allRates), 'GET /api/v1/models/anthropic/claude-sonnet-4/endpoints'],
  [
    'chatCompletion',
    (client) => client.chatCompletion({ model: FAKE_SLUGS.allRates, messages: [{ role: 'user', content: 'hi' }] }),
    'POST /api/v1/chat/completions',
  ],
];

describe('router client failures', () => {
  const fake = useFakeRouter(KEY);
  const client = fake.client;

  describe.each(CALLS)('%s', (_name, call, request) => {
    it('answers 502 when the provider refuses connections', async () => {
      await fake.router.down();
      const error = await httpError(call(client()));
      expect(error.statusCode).toBe(502);
      expect(error.code).toBe('upstream_unavailable');
      expect(error.message).toBe(`The routing provider at ${fake.router.url} refused the connection.`);
    });

    it('answers 502 when the provider hangs up without answering', async () => {
      await fake.router.hangUp();
      const error = await httpError(call(client()));
      expect(error.code).toBe('upstream_unavailable');
      expect(error.message).toBe(`The routing provider at ${fake.router.url} closed the connection before answering.`);
    });

    it('answers 502 naming the timeout when the provider is too slow', async () => {
      await fake.router.slow(1500);
      const started = Date.now();
      const error = await httpError(call(client({ timeoutMs: 150 })));
      expect(Date.now() - started).toBeLessThan(1000);
      expect(error.code).toBe('upstream_unavailable');
      expect(error.message).toBe(`The routing provider at ${fake.router.url} did not answer within 150 ms.`);
    });

    it('answers 502 naming the status when the provider fails', async () => {
      await fake.router.status(503, 'Service temporarily unavailable');
      const error = await httpError(call(client()));
      expect(error.statusCode).toBe(502);
      expect(error.message).toBe(
        `The routing provider at ${fake.router.url} answered ${request} with HTTP 503: Service temporarily unavailable.`,
      );
    });

    it.each([401, 403])('answers 502 saying the key was refused on HTTP %i', async (status) => {
      await fake.router.status(status);
      const error = await httpError(call(client()));
      expect(error.code).toBe('upstream_unavailable');
      expect(error.message).toBe(`The routing provider at ${fake.router.url} refused the API key (HTTP ${status}).`);
    });

    it('answers 502 saying the body is not JSON', async () => {
      await fake.router.malformed('not-json');
      const error = await httpError(call(client()));
      expect(error.code).toBe('upstream_unavailable');
      expect(error.message).toBe(`The routing provider at ${fake.router.url} answered ${request} with a malformed response: the body is not JSON.`);
    });

    it('answers 502 naming the field when the JSON has the wrong shape', async () => {
      await fake.router.malformed('wrong-shape');
      const error = await httpError(call(client()));
      expect(error.code).toBe('upstream_unavailable');
      expect(error.message).toMatch(
        new RegExp(`^The routing provider at ${fake.router.url} answered ${request} with a malformed response: \\S+ is .+\\.$`),
      );
    });
  });

  it('names the field that is malformed', async () => {
    await fake.router.malformed('wrong-shape');
    expect((await httpError(client().listModels())).message).toContain('malformed response: data[0].id is not a non-empty string.');
    expect((await httpError(client().lookupListing(FAKE_SLUGS.allRates))).message).toContain(
      'malformed response: data.endpoints[0].provider_name is not a non-empty string.',
    );
    expect((await httpError(client().chatCompletion({ model: FAKE_SLUGS.allRates }))).message).toContain(
      'malformed response: choices is not an array.',
    );
  });

  it('answers router_key_missing when no key is configured and the provider wants one', async () => {
    const error = await httpError(client({ apiKey: undefined }).lookupListing(FAKE_SLUGS.allRates));
    expect(error.statusCode).toBe(503);
    expect(error.code).toBe('router_key_missing');
    expect(fake.router.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('sends the wrong key, gets refused, and does not repeat the key', async () => {
    const error = await httpError(client({ apiKey: 'sk-or-v1-wrong' }).listModels());
    expect(error.message).toBe(`The routing provider at ${fake.router.url} refused the API key (HTTP 401).`);
    expect(error.message).not.toContain('sk-or-v1-wrong');
  });

  it('scrubs the key from error text the provider echoes back', async () => {
    await fake.router.status(400, `Key ${KEY} is not allowed to call this model`);
    const error = await httpError(client().listModels());
    expect(error.message).toBe(
      `The routing provider at ${fake.router.url} answered GET /api/v1/models with HTTP 400: Key [redacted] is not allowed to call this model.`,
    );
  });

  it.each([
    [402, 'refused GET /api/v1/models for lack of credit (HTTP 402): Insufficient credits.'],
    [429, 'is rate-limiting this backend (HTTP 429): Insufficient credits.'],
    [500, 'answered GET /api/v1/models with HTTP 500: Insufficient credits.'],
  ])('words HTTP %i for what it means', async (status, sentence) => {
    await fake.router.status(status, 'Insufficient credits');
    expect((await httpError(client().listModels())).message).toBe(`The routing provider at ${fake.router.url} ${sentence}`);
  });

  it('treats a 404 on the model list as a failure, not as an empty list', async () => {
    const error = await httpError(client({ baseUrl: `${fake.router.url}/wrong-prefix` }).listModels());
    expect(error.message).toBe(`The routing provider at ${fake.router.url}/wrong-prefix answered GET /api/v1/models with HTTP 404: Not Found.`);
  });

  it('says the default timeout in seconds', async () => {
    await fake.router.slow(3 * SECOND);
    const error = await httpError(client({ timeoutMs: 1 * SECOND }).listModels());
    expect(error.message).toBe(`The routing provider at ${fake.router.url} did not answer within 1 s.`);
  });

  it('stops reading a runaway body and answers 502', async () => {
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1 << 20;
        controller.enqueue(new Uint8Array(1 << 20));
      },
    });
    const fetchEndless: typeof fetch = async () => new Response(endless, { status: 200 });
    const error = await httpError(client({ fetch: fetchEndless }).listModels());
    expect(error.message).toBe(`The routing provider at ${fake.router.url} answered GET /api/v1/models with a body larger than 32 MiB.`);
    expect(sent).toBeLessThan(40 << 20);
  });

  it('does not follow a redirect, so the key stays with the configured host', async () => {
    const moved = await listenOnLoopback((_request, response) => {
      response.writeHead(301, { location: `${fake.router.url}/api/v1/models?from=moved` });
      response.end();
    });
    try {
      const error = await httpError(client({ baseUrl: moved.origin }).listModels());
      expect(error.message).toBe(
        `The routing provider at ${moved.origin} redirected GET /api/v1/models to ${fake.router.url}/api/v1/models; ` +
          'ROUTER_BASE_URL should name the final address.',
      );
      expect(fake.router.requests).toEqual([]);
    } finally {
      await moved.close();
    }
  });

  it('reports a host that does not resolve', async () => {
    const error = await httpError(createRouterClient({ baseUrl: 'http://router.invalid', apiKey: KEY }).listModels());
    expect(error.message).toMatch(/^The routing provider at http:\/\/router\.invalid (could not be resolved \(DNS lookup failed\)|could not be reached.*)\.$/);
  });

  it.each([
    ['not a URL', 'openrouter.ai'],
    ['another scheme', 'ftp://openrouter.ai'],
    ['credentials', 'https://user:pass@openrouter.ai'],
  ])('refuses a base URL with %s when created', (_case, baseUrl) => {
    expect(() => createRouterClient({ baseUrl, apiKey: KEY })).toThrow(TypeError);
  });
});
