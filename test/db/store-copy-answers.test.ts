import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyStore } from '../../src/db/store-copy/copy-store.js';
import { storeLocation } from '../../src/db/store-copy/store-location.js';
import { scriptProbe } from '../fakes/fake-probe-replies.js';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { claimNext, completeClaimed, type ClaimedRun } from '../helpers/dispatcher.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { dropTestDatabase, testDatabase } from '../helpers/postgres.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestAuth, type TestAuth } from '../helpers/test-auth.js';
import { startTestBackend, TEST_ENGINE, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';
import { ggRunRecord, slice } from '../stats/gg-run-records.js';

const SERVICE = 'dispatch-secret';
const CLAUDE = { harness: 'claude', model: 'anthropic/claude-x' };
const CODEX = { harness: 'codex', model: 'openai/gpt-y' };
const PROBED = 'sonnet-probed';

/**
 * What must differ between two deployments of one store: how long each connection of theirs
 * has idled, and the ingest queue's finished jobs (every boot runs an ingest rescan, so the
 * second deployment has one more). Everything else in an answer is the store's and must match.
 */
function withoutDeploymentFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDeploymentFields);
  if (value === null || typeof value !== 'object') return value;
  const bootCounted = (value as { name?: unknown }).name === 'ingest';
  return Object.fromEntries(Object.entries(value)
    .filter(([key]) => key !== 'idleSeconds' && !(bootCounted && key === 'completed'))
    .map(([key, inner]) => [key, withoutDeploymentFields(inner)]));
}

let auth: TestAuth;
let router: FakeRouter;
let catalogDir: string;
let sqlite: TestBackend | null = null;
let postgres: TestBackend | null = null;
let databaseUrl: string | null = null;
let alice: string;
let bob: string;
let reads: Array<[string, string | undefined]>;

afterAll(async () => {
  await sqlite?.close();
  await postgres?.close();
  if (databaseUrl) await dropTestDatabase(databaseUrl);
  await router?.close();
  await auth?.close();
  if (catalogDir) rmSync(catalogDir, { recursive: true, force: true });
});

/** The same settings on either side: one auth service, one routing provider, one Redis queue. */
const env = (extra: Record<string, string> = {}) => ({ SERVICE_TOKEN: SERVICE, AUTH_URL: auth.url, ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', ...extra });

/** Claims every queued job as a dispatcher would, in queue order. */
async function claimAll(http: ReturnType<typeof jobsHttp>): Promise<ClaimedRun[]> {
  const claimed: ClaimedRun[] = [];
  for (let job = await claimNext(http, SERVICE); job; job = await claimNext(http, SERVICE)) claimed.push(job);
  return claimed;
}

/**
 * A store with a realistic mix, built through the app over HTTP on SQLite: models and a
 * probe, a coverage plan and a ladder, launched jobs claimed and finished by a dispatcher
 * (completed, unloaded, timed out), reviews from two accounts, gg runs with provider slices,
 * and jobs left queued.
 */
async function buildStore(backend: TestBackend): Promise<void> {
  const http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  await seedCatalog(backend.store, catalogDir, [
    { slug: 'pong', version: 'v1.0.0', domains: ['play'] },
    { slug: 'maze', version: 'v1.0.0', domains: ['play'] },
    { slug: 'maze', version: 'v1.1.0', domains: ['play'] },
  ]);
  alice = (await auth.register('alice')).token;
  bob = (await auth.register('bob')).token;
  const ok = (answer: { status: number; body: unknown }, status = 200) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    return answer.body as { id: string; [key: string]: unknown };
  };

  let calls = 0;
  router.scriptChat(scriptProbe(() => (calls++ % 3 === 2 ? 'stray-tool-call' : 'clean')));
  ok(await http.post('/models', alice, {
    slug: PROBED, name: 'Probed', provider: 'Anthropic', aliases: [], openrouterSlug: FAKE_SLUGS.allRates, providerPin: null,
    nativeQuantization: null, maxInputPrice: null, maxOutputPrice: null, bannedProviders: [], unknownQuantizationProviders: [],
    listPriceInputPerMtok: 1, listPriceCachedInputPerMtok: 0.1, listPriceOutputPerMtok: 5, listPriceAsOf: '2026-11-01',
    description: null, logoSvg: null, providerLogoUrl: null,
  }), 201);
  const probe = ok(await http.post(`/models/${PROBED}/probes`, alice, { language: 'rust', samples: 2, maxTokens: 1000, provider: 'Anthropic' }), 202) as unknown as { probe: { id: string } };
  await until(async () => (await http.get(`/model-probes/${probe.probe.id}`)).body.probe.status !== 'running', 20_000, 'the probe to finish');

  const plan = ok(await http.post('/coverage-plans', alice, {
    name: 'Weekly', runsPerCell: 2, combos: [CLAUDE, CODEX],
    cases: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }, { slug: 'maze', version: 'v1.1.0', variant: 'base' }],
  }), 201);
  const ladder = ok(await http.post('/ladders', alice, {
    name: 'Two rungs', runsPerCell: 1, combos: [CLAUDE, CODEX],
    rungs: [{ slug: 'pong', version: 'v1.0.0', variant: 'base' }, { slug: 'maze', version: 'v1.0.0', variant: 'base' }],
  }), 201);
  ok(await http.post(`/ladders/${ladder.id}/pause`, alice, { paused: false }));
  ok(await http.post(`/ladders/${ladder.id}/topup`, alice));
  const launches = ['pong', 'maze'].flatMap((slug) => [CLAUDE, CODEX].map((combo) => ({ testCase: slug, version: slug === 'maze' ? 'v1.1.0' : 'v1.0.0', variant: 'base', ...combo })));
  ok(await http.post('/jobs/batch', bob, { runs: [...launches, ...launches] }));

  const claimed = await claimAll(http);
  expect(claimed.length).toBe(10);
  const runIds: string[] = [];
  for (const [i, job] of claimed.entries()) runIds.push(await completeClaimed(http, job, i % 5 === 4 ? 'timed_out' : 'completed', i % 4 !== 3));
  const review = (token: string, runId: string, rating: string) => http.post(`/runs/${runId}/reviews`, token, { ratings: [{ domain: 'play', rating }], writeup: `Rated ${rating}.` });
  for (const [i, runId] of runIds.entries()) {
    if (i % 3 !== 2) ok(await review(alice, runId, i % 2 === 0 ? 'great' : 'broken'));
    if (i % 4 === 0) ok(await review(bob, runId, 'scuffed'));
  }
  // The ladder tops itself up after the reviews; what it queued stays queued.
  ok(await http.post('/jobs/batch', bob, { runs: launches.slice(0, 2) }));

  for (let i = 0; i < 4; i++) {
    await seedRun(backend, ggRunRecord({
      model: `vendor/gg-${i % 2}`, cost: i === 3 ? null : 0.25 * i,
      summary: {
        executionMode: i % 2 === 0 ? 'tool_calling' : 'responses_as_code', toolCalls: 3 + i,
        providerStats: [slice('Together', `vendor/gg-${i % 2}`, { errors: { rate_limit: i } }), slice(i === 1 ? null : 'Groq', null, { calls: 5 + i })],
      },
    }));
  }

  reads = [
    ['/runs?state=review', undefined],
    ['/runs?state=review&limit=3', undefined],
    ['/runs?state=unreviewed', undefined],
    ['/runs?state=failures', undefined],
    ['/runs?state=any&fields=summary&offset=0&sort=cost&dir=desc', undefined],
    ['/runs?state=any&fields=summary&offset=0&sort=rating&dir=asc', undefined],
    ['/runs?state=any&fields=summary&offset=2&limit=5&sort=model', undefined],
    ['/runs?state=unreviewed&fields=summary&offset=0&sort=runtime', undefined],
    ['/runs?state=any&fields=summary&offset=0&harness=gg', undefined],
    ['/runs?state=any&fields=summary&offset=0&q=PONG&sort=testCase', undefined],
    ['/runs?state=any&fields=summary&offset=0&latestVersions=true&sort=tokens', undefined],
    [`/runs/${runIds[0]}`, undefined],
    [`/coverage-plans/${plan.id}/coverage`, alice],
    [`/coverage-plans/${plan.id}/queue`, alice],
    [`/ladders/${ladder.id}`, alice],
    [`/ladders/${ladder.id}/progress`, alice],
    [`/ladders/${ladder.id}/queue`, alice],
    ['/stats/cabinet', undefined],
    ['/stats/providers', undefined],
    ['/stats/model-accuracy', undefined],
    ['/models', undefined],
    [`/model-probes/${probe.probe.id}`, undefined],
    ['/status', undefined],
  ];
}

/** Every read's status and JSON, without the fields that belong to the deployment. */
async function answers(backend: TestBackend): Promise<Record<string, unknown>> {
  const answered: Record<string, unknown> = {};
  for (const [url, token] of reads) {
    const response = await backend.app.inject({ url, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });
    answered[url] = { status: response.statusCode, body: withoutDeploymentFields(response.json()) };
  }
  return answered;
}

// The source is SQLite by construction; the PostgreSQL half has nothing to add to this file.
describe.skipIf(TEST_ENGINE === 'postgres')('a store copied from SQLite to PostgreSQL answers the same', () => {
  beforeAll(async () => {
    auth = await startTestAuth();
    router = await startFakeRouter();
    catalogDir = mkdtempSync(join(tmpdir(), 'evb-copy-answers-'));
    sqlite = await startTestBackend(env(), { pricedModels: [CLAUDE.model, CODEX.model] });
    await buildStore(sqlite);
  }, 60_000);

  it('serves the same listings, matrix, board, statistics and status from either engine', async () => {
    const source = sqlite!;
    // Settled: background work (grades, the ladder's top-up) has nothing left to change.
    let before = await answers(source);
    await until(async () => {
      const again = await answers(source);
      const same = JSON.stringify(again) === JSON.stringify(before);
      before = again;
      return same;
    }, 10_000, 'the SQLite answers to settle');
    expect(Object.entries(before).filter(([, answer]) => (answer as { status: number }).status !== 200)).toEqual([]);

    // Moved as an operator moves it: the service stopped, `store copy`, then started on the copy with the same Redis.
    databaseUrl = await testDatabase();
    const reports = await copyStore(storeLocation(join(source.dataDir, 'backend.sqlite'), source.dataDir), storeLocation(databaseUrl, source.dataDir));
    expect(reports.filter((report) => !report.ok)).toEqual([]);
    const { redisPrefix } = source.config;
    await source.close();
    sqlite = null;
    postgres = await startTestBackend(env({ DATABASE_URL: databaseUrl, REDIS_PREFIX: redisPrefix }));
    expect(postgres.store.engine).toBe('postgres');

    const after = await answers(postgres);
    for (const [url] of reads) expect(after[url], url).toEqual(before[url]);
  }, 60_000);
});
