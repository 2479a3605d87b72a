import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROBE_LANGUAGES } from '../../src/probes/probe-conversations.js';
import { scriptProbe, probeReply } from '../fakes/fake-probe-replies.js';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { openConsole } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let router: FakeRouter;
let backend: TestBackend;
let base: string;
let http: ReturnType<typeof jobsHttp>;
let token: string;

const SLUG = 'sonnet-console';
const encoded = encodeURIComponent(FAKE_SLUGS.allRates);

beforeAll(async () => {
  router = await startFakeRouter();
  backend = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', PROBE_CONCURRENCY: '3', PROBE_MAX_RETRIES: '2' });
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  token = (await backend.auth.register('prober')).token;
  // The console's own form: a catalog slug without a slash, the routing id beside it.
  const created = await http.post('/models', token, {
    slug: SLUG, name: 'Claude Sonnet 4', provider: 'Anthropic', aliases: [], openrouterSlug: FAKE_SLUGS.allRates, providerPin: null,
    nativeQuantization: null, maxInputPrice: null, maxOutputPrice: null, bannedProviders: [], unknownQuantizationProviders: [],
    listPriceInputPerMtok: null, listPriceCachedInputPerMtok: null, listPriceOutputPerMtok: null, listPriceAsOf: null,
    description: null, logoSvg: null, providerLogoUrl: null,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await backend.app.models.create({ slug: FAKE_SLUGS.allRates });
});
afterAll(async () => {
  await backend.close();
  await router.close();
});
beforeEach(() => {
  router.scriptChat(null);
  router.requests.length = 0;
});

/** Polls the probe's detail, as the console does, until it is no longer running. */
async function finished(id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await http.get(`/model-probes/${id}`);
    if (detail.body.probe.status !== 'running') return detail.body;
    if (Date.now() > deadline) throw new Error(`probe ${id} still running after ${timeoutMs} ms: ${JSON.stringify(detail.body.probe)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const chatBodies = () => router.requests.filter((r) => r.path === '/api/v1/chat/completions').map((r) => r.body as Record<string, unknown>);

describe('probing one arm', () => {
  it('answers 202 with the running row, replays gg’s first turn, and reads ready with each item’s label', async () => {
    router.scriptChat(scriptProbe(() => 'clean'));
    const console = await openConsole(base);
    try {
      const ack = await http.post(`/models/${SLUG}/probes`, token, { language: 'rust', samples: 2, maxTokens: 1000, provider: 'Anthropic' });
      expect(ack.status, JSON.stringify(ack.body)).toBe(202);
      expect(ack.body.probe).toMatchObject({ modelSlug: SLUG, openrouterSlug: FAKE_SLUGS.allRates, language: 'rust', samples: 2, maxTokens: 1000, status: 'running', callCount: 8 });
      const detail = await finished(ack.body.probe.id);
      expect(detail.probe).toMatchObject({ status: 'complete', verdict: 'ready', passRate: 1, itemCount: 8, passCount: 8, errorCount: 0, error: null });
      expect(detail.probe.spend).toBeCloseTo(8 * 0.0005);
      expect(detail.items).toHaveLength(8);
      expect(new Set(detail.items.map((item: { label: string }) => item.label))).toEqual(new Set(['correct-calls', 'docview-first']));
      expect(detail.items[0]).toMatchObject({ language: 'rust', provider: 'Anthropic', finishReason: 'tool_calls', pass: true, promptTokens: 1200, error: null });
      expect(detail.requests.map((r: { prompt: string }) => r.prompt)).toEqual(['write-plan', 'inventory', 'run-tests', 'fix-typo']);

      const bodies = chatBodies();
      expect(bodies).toHaveLength(8);
      for (const body of bodies) {
        expect(body).toMatchObject({
          model: FAKE_SLUGS.allRates, max_tokens: 1000, usage: { include: true },
          tool_choice: { type: 'function', function: { name: 'submit_program' } },
          provider: { order: ['Anthropic'], allow_fallbacks: false },
        });
        expect(body).not.toHaveProperty('temperature');
        expect((body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['submit_program']);
        expect(body.prompt_cache_key).toBe(body.session_id);
      }
      expect(new Set(bodies.map((b) => b.session_id)).size).toBe(8);

      const frame = await console.next((f) => f.event === 'notification' && f.data.includes(ack.body.probe.id));
      expect(JSON.parse(frame.data)).toMatchObject({ kind: 'probe-finished', probeId: ack.body.probe.id, modelSlug: SLUG, outcome: 'completed', verdict: 'ready' });

      const history = await http.get(`/models/${SLUG}/probes`);
      expect(history.body.probes[0]).toMatchObject({ id: ack.body.probe.id, status: 'complete' });
      // Probe evidence reaches the provider statistics, apart from run evidence.
      const stats = await http.get('/stats/providers');
      expect(stats.body.probes).toEqual([{ provider: 'Anthropic', models: [{ modelSlug: SLUG, items: 8, passes: 8, errored: 0 }] }]);
    } finally {
      console.close();
    }
  });

  it('honours 429 Retry-After with the same session, and voids a call whose retries run out', async () => {
    const limited = new Set<unknown>();
    // The first attempt of every call is rate-limited; the retry, under the same session id, lands.
    router.scriptChat((body) => {
      if (limited.has(body.session_id)) return probeReply('clean', body);
      limited.add(body.session_id);
      return probeReply('rate-limited', body);
    });
    const ack = await http.post(`/models/${encoded}/probes`, token, { language: 'python', samples: 1 });
    expect(ack.status, JSON.stringify(ack.body)).toBe(202);
    const detail = await finished(ack.body.probe.id);
    expect(detail.probe).toMatchObject({ status: 'complete', verdict: 'ready', itemCount: 4, errorCount: 0 });
    expect(chatBodies()).toHaveLength(8);

    router.scriptChat((body) => probeReply('rate-limited', body));
    // The id spelled with its slash names the same model as the encoded one.
    const starved = await http.post(`/models/${FAKE_SLUGS.allRates}/probes`, token, { language: 'python', samples: 1 });
    const failed = await finished(starved.body.probe.id);
    expect(failed.probe).toMatchObject({ status: 'failed', verdict: null, passRate: null, errorCount: 4 });
    expect(failed.probe.error).toContain('HTTP 429');
    expect(failed.items[0].error).toContain('after 3 tries');
  });
});

describe('probing every arm', () => {
  it('labels each shape fault and reads not-ready when a group falls under 80%', async () => {
    router.scriptChat(scriptProbe((c) => {
      if (c.language === 'python' && c.scenario === 'baseline') return c.prompt === 'inventory' ? 'fenced' : 'think-tags';
      if (c.language === 'ruby' && c.prompt === 'run-tests') return 'called-undocumented';
      if (c.language === 'java' && c.prompt === 'fix-typo') return 'stray-tool-call';
      if (c.language === 'cpp' && c.prompt === 'write-plan') return 'error';
      return 'clean';
    }, { delayMs: 20 }));
    const ack = await http.post(`/models/${SLUG}/probes`, token, { samples: 2 });
    expect(ack.body.probe).toMatchObject({ language: null, callCount: PROBE_LANGUAGES.length * 4 * 2 });
    const detail = await finished(ack.body.probe.id, 30_000);
    expect(detail.probe).toMatchObject({ status: 'complete', verdict: 'not-ready', itemCount: 88, errorCount: 2 });
    expect(router.chatInFlight().peak).toBeLessThanOrEqual(3);
    const labelOf = (language: string, prompt: string) =>
      detail.items.find((i: { language: string; prompt: string }) => i.language === language && i.prompt === prompt);
    expect(labelOf('python', 'inventory').label).toBe('fenced');
    expect(labelOf('python', 'write-plan').label).toBe('cot-leak');
    expect(labelOf('ruby', 'run-tests').label).toBe('called-undocumented');
    expect(labelOf('java', 'fix-typo').label).toBe('stray-tool-call');
    expect(labelOf('cpp', 'write-plan')).toMatchObject({ label: null, pass: false, error: expect.stringContaining('HTTP 500') });
    // 80 scored calls, 8 of them failing (python baseline 4, ruby run-tests 2, java fix-typo 2).
    expect(detail.probe.passRate).toBeCloseTo(78 / 86);
    expect(detail.requests).toHaveLength(44);
  });
});

describe('refusals name their cause', () => {
  it('answers 401, 404, 422 and 409 with one sentence each', async () => {
    expect((await http.post(`/models/${SLUG}/probes`, undefined, {})).status).toBe(401);
    const unknown = await http.post('/models/acme%2Fnone/probes', token, {});
    expect(unknown).toMatchObject({ status: 404, body: { error: { message: 'The model catalog has no entry acme/none.' } } });
    const cases: Array<[object, string]> = [
      [{ samples: 0 }, 'samples must be a whole number from 1 to 128 (calls per case); got 0.'],
      [{ samples: 129 }, 'samples must be a whole number from 1 to 128 (calls per case); got 129.'],
      [{ samples: 1.5 }, 'samples must be a whole number from 1 to 128 (calls per case); got 1.5.'],
      [{ maxTokens: 100 }, 'maxTokens must be a whole number from 256 to 16000 (completion tokens per call); got 100.'],
      [{ language: 'cobol' }, 'language must be one of typescript, javascript, python, ruby, purescript, java, kotlin, rust, swift, cpp, csharp (or absent for every arm); got "cobol".'],
    ];
    for (const [body, message] of cases) {
      const response = await http.post(`/models/${SLUG}/probes`, token, body);
      expect(response, JSON.stringify(body)).toMatchObject({ status: 422, body: { error: { code: 'unprocessable', message } } });
    }
    await http.post('/models', token, { slug: 'local-only' });
    const noRoute = await http.post('/models/local-only/probes', token, {});
    expect(noRoute.status).toBe(422);
    expect(noRoute.body.error.message).toContain('has no routing-provider id');

    router.scriptChat(scriptProbe(() => 'clean', { delayMs: 150 }));
    const first = await http.post(`/models/${SLUG}/probes`, token, { language: 'swift', samples: 1 });
    const second = await http.post(`/models/${SLUG}/probes`, token, { language: 'swift', samples: 1 });
    expect(second.status).toBe(409);
    expect(second.body.error.message).toContain(`A probe of ${SLUG} is already running (${first.body.probe.id}`);
    await finished(first.body.probe.id);
  });

  it('lists the providers a probe may pin', async () => {
    const listed = await http.get(`/models/${SLUG}/probe-providers`, token);
    expect(listed.body).toEqual({
      openrouterSlug: FAKE_SLUGS.allRates,
      providers: [
        { name: 'Google Vertex', contextLength: 200_000 }, { name: 'Anthropic', contextLength: 200_000 }, { name: 'Amazon Bedrock', contextLength: 200_000 },
      ],
    });
    expect((await http.get(`/models/${SLUG}/probe-providers`)).status).toBe(401);
    expect((await http.get(`/models/${FAKE_SLUGS.unlisted}/probe-providers`, token)).status).toBe(404);
  });

  it('answers 503 router_key_missing on a deployment without a routing-provider key', async () => {
    const keyless = await startTestBackend({ ROUTER_BASE_URL: router.url, RUN_WORKERS: 'false' });
    try {
      const own = (await keyless.auth.register('keyless')).token;
      await keyless.app.models.create({ slug: FAKE_SLUGS.allRates });
      const response = await keyless.app.inject({ method: 'POST', url: `/models/${encoded}/probes`, headers: { authorization: `Bearer ${own}` }, payload: {} });
      expect(response.statusCode).toBe(503);
      expect(response.json().error).toEqual({ code: 'router_key_missing', message: 'ROUTER_API_KEY is not configured on this deployment.' });
    } finally {
      await keyless.close();
    }
  });
});
