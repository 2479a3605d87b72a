import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { launchModelAdmission } from '../../src/models/admit-launch-model.js';
import { refreshBilledRates } from '../../src/models/observe-billed-rate.js';
import { Queue, type Job } from 'bullmq';
import { billedRateRefreshProcessor } from '../../src/models/billed-rate-refresh.js';
import { BACKGROUND_QUEUES } from '../../src/queue/queue-keys.js';
import { bullConnection } from '../../src/redis/managed-redis.js';
import { DAY } from '../../src/time.js';
import { FAKE_LOGOS, startFakeLogoServer, type FakeLogoServer } from '../fakes/fake-logo-server.js';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

let backend: TestBackend;
let router: FakeRouter;
let logos: FakeLogoServer;
let token: string;

beforeAll(async () => {
  router = await startFakeRouter();
  logos = await startFakeLogoServer();
  backend = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', LOGO_BASE_URL: logos.url });
  token = (await backend.auth.register('curator')).token;
});
afterAll(async () => {
  await backend.close();
  await router.close();
  await logos.close();
});

const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, auth = true) =>
  backend.app.inject({ method, url, headers: auth ? bearer(token) : {}, ...(payload ? { payload } : {}) });

const HAND_PRICE = { listPriceInputPerMtok: 2, listPriceCachedInputPerMtok: 0.5, listPriceOutputPerMtok: 8, listPriceAsOf: '2026-11-01' };

async function insertRun(id: string, modelId: string, harness = 'claude') {
  const now = new Date().toISOString();
  await backend.store.db.insertInto('runs').values({
    id, record: '{}', record_format: 1, state: 'completed', test_case_slug: 'pong', test_case_version: 'v1.1.0', variant: 'base',
    harness, model_id: modelId, created_at: now, updated_at: now,
  }).execute();
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not reached within 2 s');
}

describe('model catalog writes', () => {
  it('needs a token', async () => {
    expect((await send('POST', '/models', { slug: 'acme/a' }, false)).statusCode).toBe(401);
    expect((await send('PUT', '/models/acme/a', {}, false)).statusCode).toBe(401);
    expect((await send('DELETE', '/models/acme/a', undefined, false)).statusCode).toBe(401);
  });

  it('creates an entry (201) whose list price stays null until set, and refuses a taken slug (409)', async () => {
    const created = await send('POST', '/models', { slug: 'acme/widget-1', name: 'Widget 1', aliases: [{ slug: 'widget', harnessFamily: 'claude' }] });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      slug: 'acme/widget-1', name: 'Widget 1', curated: true, runCount: 0,
      listPrice: null, listPriceAsOf: null, listPriceSource: null, priceHistory: [],
      aliases: [{ slug: 'widget', harnessFamily: 'claude' }],
    });
    const again = await send('POST', '/models', { slug: 'acme/widget-1' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toBe('The model catalog already has an entry acme/widget-1.');
  });

  it('writes the list price whole: a partial write is 422 naming what is missing and stores nothing', async () => {
    const partial = await send('POST', '/models', { slug: 'acme/partial', listPriceInputPerMtok: 1, listPriceOutputPerMtok: 2 });
    expect(partial.statusCode).toBe(422);
    expect(partial.json().error.message).toContain('listPriceCachedInputPerMtok, listPriceAsOf are missing');
    expect((await send('GET', '/models')).json().models.map((m: { slug: string }) => m.slug)).not.toContain('acme/partial');

    const whole = await send('POST', '/models', { slug: 'acme/priced', ...HAND_PRICE });
    expect(whole.json()).toMatchObject({
      listPrice: { uncachedInput: 0.000002, cachedInput: 5e-7, output: 0.000008 }, listPriceAsOf: '2026-11-01', listPriceSource: 'hand',
      listPriceInputPerMtok: 2,
    });
  });

  it('keeps the stored list price when a write omits all four fields, and updates through either slug spelling', async () => {
    const renamed = await send('PUT', '/models/acme/priced', { description: 'A priced model' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ description: 'A priced model', listPriceSource: 'hand', listPrice: { output: 0.000008 } });

    const encoded = await send('PUT', '/models/acme%2Fpriced', { listPriceInputPerMtok: 3, listPriceCachedInputPerMtok: 1, listPriceOutputPerMtok: 9, listPriceAsOf: '2026-11-20' });
    expect(encoded.json()).toMatchObject({ listPrice: { uncachedInput: 0.000003, cachedInput: 0.000001, output: 0.000009 }, listPriceAsOf: '2026-11-20' });

    const half = await send('PUT', '/models/acme/priced', { listPriceAsOf: '2026-12-01' });
    expect(half.statusCode).toBe(422);
    expect((await send('PUT', '/models/acme/nothing', { name: 'x' })).statusCode).toBe(404);
    expect((await send('PUT', '/models/acme/priced', { listPriceInputPerMtok: -1, listPriceCachedInputPerMtok: 1, listPriceOutputPerMtok: 9, listPriceAsOf: '2026-11-20' })).json().error.message)
      .toBe('body.listPriceInputPerMtok must be >= 0.');
  });

  it('deletes a curated entry and answers 404 for an unknown one', async () => {
    await send('POST', '/models', { slug: 'acme/doomed' });
    const deleted = await send('DELETE', '/models/acme/doomed');
    expect(deleted.json()).toEqual({ slug: 'acme/doomed', deleted: true });
    expect((await send('DELETE', '/models/acme/doomed')).statusCode).toBe(404);
  });
});

describe('model catalog reads', () => {
  it('merges run-derived model ids with curated entries and counts runs', async () => {
    await insertRun('run-derived-1', 'newco/unseen-7');
    await insertRun('run-derived-2', 'newco/unseen-7');
    await insertRun('run-curated-1', 'acme/widget-1');
    const response = await backend.app.inject('/models');
    expect(response.statusCode).toBe(200);
    const bySlug = new Map(response.json().models.map((m: { slug: string }) => [m.slug, m]));
    expect(bySlug.get('newco/unseen-7')).toMatchObject({ curated: false, runCount: 2, name: null, listPrice: null });
    expect(bySlug.get('acme/widget-1')).toMatchObject({ curated: true, runCount: 1 });
  });

  it('seeds a blank form from a run (open) and answers 404 for an unknown run', async () => {
    const seeded = await backend.app.inject('/models/seed?runId=run-derived-1');
    expect(seeded.statusCode).toBe(200);
    expect(seeded.json()).toMatchObject({ slug: 'newco/unseen-7', name: null, listPriceAsOf: null, aliases: [], openrouterSlug: 'newco/unseen-7', harness: 'claude' });
    expect((await backend.app.inject('/models/seed?runId=nope')).statusCode).toBe(404);
    expect((await backend.app.inject('/models/seed')).json().error.message).toBe('querystring.runId is required.');
  });
});

describe('routing provider lookup', () => {
  it('answers display fields and the official per-Mtok rates, with the deployment key', async () => {
    const response = await send('GET', `/models/router?slug=${FAKE_SLUGS.allRates}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ slug: FAKE_SLUGS.allRates, provider: 'Anthropic', inputPerMtok: 3, cachedInputPerMtok: 0.3, outputPerMtok: 15 });
    expect(router.requests.at(-1)?.headers.authorization).toBe('Bearer sk-test');
  });

  it('answers null rates where the official endpoint lists none, 404 for an unlisted slug, 401 without a token', async () => {
    expect((await send('GET', `/models/router?slug=${FAKE_SLUGS.noOfficialEndpoint}`)).json()).toMatchObject({ inputPerMtok: null, outputPerMtok: null });
    expect((await send('GET', `/models/router?slug=${FAKE_SLUGS.unlisted}`)).statusCode).toBe(404);
    expect((await send('GET', `/models/router?slug=${FAKE_SLUGS.allRates}`, undefined, false)).statusCode).toBe(401);
  });

  it('answers 502 with a clear message when the provider is down', async () => {
    await router.down();
    try {
      const response = await send('GET', `/models/router?slug=${FAKE_SLUGS.allRates}`);
      expect(response.statusCode).toBe(502);
      expect(response.json().error.code).toBe('upstream_unavailable');
      expect(response.json().error.message).toMatch(/routing provider/i);
      expect(response.body).not.toContain('sk-test');
    } finally {
      await router.normal();
    }
  });
});

describe('billed rates', () => {
  it('observes the billed rate once on save, without touching the list price', async () => {
    await send('POST', '/models', { slug: FAKE_SLUGS.allRates, name: 'Sonnet' });
    const entry = await eventually(
      async () => (await send('GET', '/models')).json().models.find((m: { slug: string }) => m.slug === FAKE_SLUGS.allRates),
      (m) => m.price !== null,
    );
    expect(entry.price).toEqual({ uncachedInput: 0.000003, cachedInput: 3e-7, output: 0.000015 });
    expect(entry.priceHistory).toHaveLength(1);
    expect(entry.priceHistory[0].source).toBe('save');
    expect(entry.listPrice).toBeNull();
  });

  it('the 24-hour refresh appends only distinct observations', async () => {
    const errors: string[] = [];
    const first = await refreshBilledRates(backend.app.models, backend.app.router, (slug) => errors.push(slug));
    // Curated so far: widget-1 and priced (unlisted by the provider: they fail) and the Sonnet entry.
    expect(first).toMatchObject({ observed: 1, changed: 0, failed: 2 });
    const history = async () => (await backend.app.models.get(FAKE_SLUGS.allRates))!.priceHistory.length;
    const before = await history();
    await refreshBilledRates(backend.app.models, backend.app.router, () => {});
    expect(await history()).toBe(before);
    expect(errors).toContain('acme/widget-1'); // the provider does not list it
  });
});

describe('24-hour refresh job', () => {
  it('is scheduled every 24 hours on the billed-rates queue, and its processor observes curated models', async () => {
    const connection = bullConnection(backend.config.redisUrl);
    const queue = new Queue(BACKGROUND_QUEUES.billedRates, { connection, prefix: backend.config.redisPrefix });
    try {
      const schedulers = await queue.getJobSchedulers();
      expect(schedulers).toEqual([expect.objectContaining({ key: 'billed-rate-refresh', every: DAY })]);
    } finally {
      await queue.close();
    }
    const { processor } = billedRateRefreshProcessor.start({ config: backend.config, store: backend.store, connection, log: backend.app.log });
    const result = await processor({ id: 'manual' } as Job);
    expect(result).toMatchObject({ observed: expect.any(Number), failed: expect.any(Number) });
    expect(result.observed).toBeGreaterThanOrEqual(1);
  });
});

describe('launch admission', () => {
  const admission = () => launchModelAdmission(backend.app.models, backend.app.router, () => {});

  it('refuses a model the catalog has no entry for, naming it', async () => {
    expect(await admission().admit('newco/unseen-7')).toEqual({ ok: false, reason: expect.stringContaining('newco/unseen-7') });
  });

  it('fills a curated entry’s missing list price from the official endpoint', async () => {
    await send('POST', '/models', { slug: FAKE_SLUGS.noCachedRate });
    expect(await admission().admit(FAKE_SLUGS.noCachedRate)).toEqual({ ok: true });
    const entry = (await backend.app.models.get(FAKE_SLUGS.noCachedRate))!;
    expect(entry.listPriceSource).toBe('router');
    expect(entry.listPriceAsOf).toBe(new Date().toISOString().slice(0, 10));
    // No cached rate listed: cached input is billed as input.
    expect(entry.listPrice!.cachedInputPerMtok).toBe(entry.listPrice!.inputPerMtok);
  });

  it('answers without waiting on a slow provider for the billed rate, and observes it behind the answer', async () => {
    await backend.app.models.create({ slug: FAKE_SLUGS.noOutputRate, ...HAND_PRICE });
    expect(await backend.app.models.hasBilledRate(FAKE_SLUGS.noOutputRate)).toBe(false);
    await router.slow(1500);
    try {
      const began = Date.now();
      expect(await admission().admit(FAKE_SLUGS.noOutputRate)).toEqual({ ok: true });
      expect(Date.now() - began).toBeLessThan(1000);
      await until(() => backend.app.models.hasBilledRate(FAKE_SLUGS.noOutputRate), 10_000, 'the billed rate to be observed');
    } finally {
      await router.normal();
    }
  });

  it('asks a failing provider about a model once while it keeps failing, and reports that failure once', async () => {
    const slug = 'acme/flaky-1';
    await backend.app.models.create({ slug, ...HAND_PRICE });
    const failures: unknown[] = [];
    // The real client, its lookups counted as they are made: the observer makes them before
    // `admit` answers, so a count read after `admit` sees every call it started, with no wait.
    const client = backend.app.router;
    let calls = 0;
    const counted = {
      lookupListing: (id: string) => ((calls += Number(id === slug)), client.lookupListing(id)),
      getEndpoints: (id: string) => ((calls += Number(id === slug)), client.getEndpoints(id)),
    };
    const admit = launchModelAdmission(backend.app.models, counted, (error) => failures.push(error));
    await router.status(503, 'overloaded');
    try {
      for (let i = 0; i < 5; i++) expect(await admit.admit(slug)).toEqual({ ok: true });
      expect(calls).toBe(1);
      await until(() => failures.length > 0, 30_000, 'the observation to fail');
      for (let i = 0; i < 5; i++) expect(await admit.admit(slug)).toEqual({ ok: true });
      expect({ failures: failures.length, calls }).toEqual({ failures: 1, calls: 1 });
    } finally {
      await router.normal();
    }
  });

  it('refuses a curated model the provider lists no rate for, and keeps a hand price', async () => {
    await send('POST', '/models', { slug: FAKE_SLUGS.noOfficialEndpoint });
    const refused = await admission().admit(FAKE_SLUGS.noOfficialEndpoint);
    expect(refused).toEqual({ ok: false, reason: expect.stringContaining('lists no rate') });
    expect(await admission().admit('acme/priced')).toEqual({ ok: true });
    expect((await backend.app.models.get('acme/priced'))!.listPriceSource).toBe('hand');
  });
});

describe('logos', () => {
  it('fetches, bounds and strips a logo from the configured library', async () => {
    const response = await send('POST', '/models/logo', { name: FAKE_LOGOS.png });
    expect(response.statusCode).toBe(200);
    const { logo, width, height } = response.json();
    const png = Buffer.from(logo.replace(/^data:image\/png;base64,/, ''), 'base64');
    const meta = await sharp(png).metadata();
    expect(meta.format).toBe('png');
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(256);
    expect([meta.width, meta.height]).toEqual([width, height]);
    expect(meta.exif ?? meta.icc ?? meta.xmp).toBeUndefined();
  });

  it('refuses a non-image and an oversized file (422) and a name that leaves the library (400)', async () => {
    expect((await send('POST', '/models/logo', { name: FAKE_LOGOS.notAnImage })).statusCode).toBe(422);
    expect((await send('POST', '/models/logo', { name: FAKE_LOGOS.hugeChunked })).statusCode).toBe(422);
    const escape = await send('POST', '/models/logo', { name: '../../etc/passwd' });
    expect(escape.statusCode).toBe(400);
    expect(escape.json().error.message).toContain('name');
  });
});
