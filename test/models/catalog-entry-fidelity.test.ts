/**
 * The model catalog entry and the logo route as the original system answers them
 * (TheClockwyrks/TheTestCabinet: crates/backend/src/api/models.rs, whose entry links the
 * routing provider only through its `openrouter_slug`, and crates/backend/src/logo.rs
 * `fetch_logo_svg`, which takes the console's `{ url }` and answers the sanitized markup).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_LOGOS, startFakeLogoServer, type FakeLogoServer } from '../fakes/fake-logo-server.js';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let router: FakeRouter;
let logos: FakeLogoServer;
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let token: string;

beforeAll(async () => {
  router = await startFakeRouter();
  logos = await startFakeLogoServer();
  backend = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', LOGO_BASE_URL: logos.url, RUN_WORKERS: 'false' });
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  token = (await backend.auth.register('catalog')).token;
});
afterAll(async () => {
  await backend?.close();
  await logos?.close();
  await router?.close();
});

describe('openrouterUrl', () => {
  it('is null for an entry without openrouterSlug, even when its slug reads author/name', async () => {
    const created = await http.post('/models', token, { slug: FAKE_SLUGS.allRates });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.openrouterUrl).toBeNull();
  });

  it("is the routing provider's page of openrouterSlug when it is set", async () => {
    const created = await http.post('/models', token, { slug: 'sonnet-local', openrouterSlug: FAKE_SLUGS.allRates });
    expect(created.body.openrouterUrl).toBe(`${router.url}/${FAKE_SLUGS.allRates}`);
  });
});

describe('POST /models/logo with the console’s { url }', () => {
  it('answers the sanitized SVG of a logo under LOGO_BASE_URL', async () => {
    const response = await http.post('/models/logo', token, { url: `${logos.url}${FAKE_LOGOS.svg}` });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Object.keys(response.body)).toEqual(['logoSvg']);
    expect(response.body.logoSvg).toMatch(/^<svg/);
  });

  it('refuses a URL outside LOGO_BASE_URL with 400 naming url', async () => {
    for (const url of ['https://svgl.app/library/acme.svg', `${new URL(logos.url).origin}/elsewhere/${FAKE_LOGOS.svg}`, 'not a url']) {
      const response = await http.post('/models/logo', token, { url });
      expect(response.status, url).toBe(400);
      expect(response.body.error.message).toMatch(/\burl\b/);
    }
  });

  it('refuses a body with neither or both of name and url, or a url that is no string, with 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /either name .* or url/],
      [{ name: FAKE_LOGOS.svg, url: `${logos.url}${FAKE_LOGOS.svg}` }, /either name .* or url/],
      [{ url: 5 }, /body\.url/],
      [{ url: '' }, /body\.url/],
    ];
    for (const [body, message] of cases) {
      const response = await http.post('/models/logo', token, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toMatch(message);
    }
  });
});
