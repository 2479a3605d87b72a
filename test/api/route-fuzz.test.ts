import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PARAM_LENGTH } from '../../src/contract/common.js';
import { buildAuthApp } from '../../src/auth/app.js';
import { AUTH_MIGRATIONS } from '../../src/auth/auth-store.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { DEEP_MARKER, deepValueOf, inputOf, valueOf, withDeepNesting, type JsonSchema } from '../helpers/schema-arbitrary.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

/**
 * Property-based fuzzing of every registered route from its own schema: requests whose
 * params, query string and body are valid-ish or broken, with or without credentials. No
 * answer may be a server fault, and every error must be the envelope. FUZZ_RUNS sets the
 * number of backend requests (default 500, a few seconds; the auth service gets a fifth as
 * many); FUZZ_SEED replays a failure.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const SERVICE = 'dispatch-secret';
const MODEL = 'openai/gpt-5';

// Answers that stay open until the client leaves (app.inject would wait forever).
const STREAMS = new Set(['GET /notifications', 'GET /jobs/:id/live', 'GET /publish-jobs/:id/live']);
// 5xx a route answers by design, not as a fault: no routing-provider key on this deployment, an empty
// store, an outside service that cannot be reached (the fuzzed backend points them at a closed port).
const DESIGNED_5XX = new Set(['router_key_missing', 'store_not_ready', 'upstream_unavailable']);
const NOWHERE = 'http://127.0.0.1:9';

type Credential = 'none' | 'bogus' | 'account' | 'service' | 'job';

interface FuzzRoute {
  method: string;
  url: string;
  /** What the route authenticates with (its `config.auth`); most requests present it. */
  auth: Credential;
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema;
}

const NASTY_SEGMENTS = ['..', '.', '%2e%2e', '%252e%252e%252fpwn.png', '%00', '%', '%E0%A4%A', '%2F', '.hidden', 'a'.repeat(400), '😀', 'con', ' '];

function collect(into: FuzzRoute[]) {
  return (route: RouteOptions) => {
    const schema = (route.schema ?? {}) as { params?: JsonSchema; querystring?: JsonSchema; body?: JsonSchema };
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || STREAMS.has(`${method} ${route.url}`)) continue;
      const auth = ((route.config as { auth?: Credential } | undefined)?.auth ?? 'none');
      // The CORS plugin's preflight route is `OPTIONS *`: any path; fuzz it as a wildcard path.
      const url = route.url === '*' ? '/*' : route.url;
      into.push({ method, url, auth, ...(schema.params ? { params: schema.params } : {}), ...(schema.querystring ? { querystring: schema.querystring } : {}), ...(schema.body ? { body: schema.body } : {}) });
    }
  };
}

/** The schemas a route's params schema gives one parameter (a union's members each may). */
const paramSchemas = (params: JsonSchema | undefined, name: string): JsonSchema[] =>
  (params ? [params, ...(params.anyOf ?? []), ...(params.oneOf ?? [])] : []).flatMap((schema) => (schema.properties?.[name] ? [schema.properties[name]] : []));

const paramNames = (url: string) => [...url.matchAll(/:([A-Za-z0-9_]+)|\*/g)].map((match) => match[1] ?? '*');

function pathOf(route: FuzzRoute, known: string[]): fc.Arbitrary<string> {
  const names = paramNames(route.url);
  if (names.length === 0) return fc.constant(route.url);
  const segment = (name: string) => {
    const schema = paramSchemas(route.params, name)[0] ?? { type: 'string' };
    return fc.oneof(
      (valueOf(schema) as fc.Arbitrary<string>).map((value) => encodeURIComponent(String(value))),
      fc.constantFrom(...NASTY_SEGMENTS),
      fc.constantFrom(...known),
    );
  };
  return fc.tuple(...names.map(segment)).map((values) => {
    let index = 0;
    return route.url.replace(/:([A-Za-z0-9_]+)|\*/g, () => values[index++]!);
  });
}

function queryOf(route: FuzzRoute): fc.Arbitrary<string> {
  const structured = inputOf(route.querystring).map((value) => {
    if (!value || typeof value !== 'object') return value === undefined ? '' : `junk=${encodeURIComponent(JSON.stringify(value))}`;
    const search = new URLSearchParams();
    for (const [key, field] of Object.entries(value)) {
      for (const item of [field].flat()) search.append(key, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
    }
    return search.toString();
  });
  return fc.oneof(structured, fc.constantFrom('', 'offset=1e309', 'limit=-1', 'offset=99999999999999999999', 'a&b&&=', 'engine=%E0%A4%A'));
}

interface FuzzBody {
  payload?: string;
  contentType?: string;
}

function bodyOf(route: FuzzRoute): fc.Arbitrary<FuzzBody> {
  const json = inputOf(route.body).map((value): FuzzBody => (value === undefined ? {} : { payload: withDeepNesting(value, 150, true), contentType: 'application/json' }));
  const odd = fc.tuple(fc.string({ maxLength: 40 }), fc.constantFrom('application/json', 'text/plain', 'application/xml', 'application/json; charset=latin1'))
    .map(([payload, contentType]) => ({ payload, contentType }));
  // Wherever the schema takes any JSON, sometimes nesting thousands of levels deep.
  const deep = fc.tuple(route.body ? deepValueOf(route.body) : fc.constant(DEEP_MARKER), fc.constantFrom(150, 5_000, 20_000), fc.boolean())
    .map(([value, levels, arrays]): FuzzBody => ({ payload: withDeepNesting(value, levels, arrays), contentType: 'application/json' }));
  return fc.oneof({ weight: 5, arbitrary: json }, { weight: 2, arbitrary: odd }, { weight: 2, arbitrary: deep }, { weight: 1, arbitrary: fc.constant({ contentType: 'application/json' }) });
}

async function fuzz(app: FastifyInstance, routes: FuzzRoute[], credentials: Partial<Record<Credential, Record<string, string>>>, known: string[], numRuns: number) {
  const any = Object.values(credentials);
  const request = fc.constantFrom(...routes).chain((route) =>
    fc.record({
      route: fc.constant(route),
      path: pathOf(route, known),
      query: queryOf(route),
      body: ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method) ? bodyOf(route) : fc.constant<FuzzBody>({}),
      headers: fc.oneof({ weight: 3, arbitrary: fc.constant(credentials[route.auth] ?? {}) }, { weight: 1, arbitrary: fc.constantFrom(...any) }),
    }),
  );
  await fc.assert(
    fc.asyncProperty(request, async ({ route, path, query, body, headers }) => {
      const url = query ? `${path}?${query}` : path;
      const response = await app.inject({
        method: route.method as 'GET',
        url,
        headers: { ...headers, ...(body.contentType ? { 'content-type': body.contentType } : {}) },
        ...(body.payload === undefined ? {} : { payload: body.payload }),
      });
      const what = `${route.method} ${url.slice(0, 300)} -> ${response.statusCode} ${response.body.slice(0, 300)}`;
      if (response.statusCode < 400 || path === '/readyz') return;
      let envelope: { error?: { code?: unknown; message?: unknown } } | undefined;
      try {
        envelope = response.json();
      } catch {
        envelope = undefined;
      }
      const isEnvelope = !!envelope && Object.keys(envelope).length === 1 && typeof envelope.error?.code === 'string' && typeof envelope.error.message === 'string'
        && Object.keys(envelope.error).length === 2;
      expect(isEnvelope, `not an envelope: ${what}`).toBe(true);
      expect(response.statusCode < 500 || DESIGNED_5XX.has(envelope!.error!.code as string), `server fault: ${what}`).toBe(true);
    }),
    { numRuns, ...(SEED === undefined ? {} : { seed: SEED }) },
  );
}

describe('every backend route, fuzzed from its schema', () => {
  const routes: FuzzRoute[] = [];
  let backend: TestBackend;
  let catalogDir: string;
  const credentials: Partial<Record<Credential, Record<string, string>>> = { none: {}, bogus: bearer('f'.repeat(64)), service: bearer(SERVICE) };
  const known = ['carom', 'v1.1.0', 'base', MODEL, 'codex'];

  beforeAll(async () => {
    catalogDir = mkdtempSync(join(tmpdir(), 'evb-fuzz-catalog-'));
    for (const folder of ['test-cases', 'game-jams', 'test-case-groups']) mkdirSync(join(catalogDir, folder));
    backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, CATALOG_DIR: catalogDir, ROUTER_BASE_URL: NOWHERE, LOGO_BASE_URL: NOWHERE, ARTIFACTS_URL: NOWHERE }, { pricedModels: [MODEL], onRoute: collect(routes) });
    await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
    const operator = (await backend.auth.register('operator')).token;
    credentials.account = bearer(operator);
    const launched = await backend.app.inject({ method: 'POST', url: '/jobs', headers: bearer(operator), payload: { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL } });
    expect(launched.statusCode).toBe(202);
    const job = (await backend.app.inject({ method: 'POST', url: '/jobs/next', headers: bearer(SERVICE) })).json() as { jobId: string; jobToken: string };
    credentials.job = { ...bearer(job.jobToken), 'x-svc-job-id': job.jobId };
    known.push(job.jobId);
  });
  afterAll(async () => {
    await backend.close();
    rmSync(catalogDir, { recursive: true, force: true });
  });

  it('enumerates the routes from Fastify', () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.map((route) => `${route.method} ${route.url}`)).toContain('POST /jobs/:id/status');
  });

  it('bounds every path parameter within what the router lets through', () => {
    const unbounded = routes.flatMap((route) => paramNames(route.url).filter((name) => name !== '*').flatMap((name) => {
      const bounds = paramSchemas(route.params, name).map((schema) => schema.maxLength);
      const bounded = bounds.length > 0 && bounds.every((bound) => bound !== undefined && bound <= MAX_PARAM_LENGTH);
      return bounded ? [] : [`${route.method} ${route.url} :${name} (${bounds.join(', ') || 'no maxLength'})`];
    }));
    expect(unbounded).toEqual([]);
  });

  it('answers no input with a server fault, and every error in the envelope', async () => {
    await fuzz(backend.app, routes, credentials, known, RUNS);
  }, 30_000 + RUNS * 30);
});

describe('every auth service route, fuzzed from its schema', () => {
  const routes: FuzzRoute[] = [];
  let dir: string;
  let db: Database;
  let app: FastifyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evb-fuzz-auth-'));
    db = openDatabase(join(dir, 'auth.sqlite'), AUTH_MIGRATIONS);
    app = await buildAuthApp({ store: sqliteStore(db), tokenLifetimeMs: null, onRoute: collect(routes) });
  });
  afterAll(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers no input with a server fault, and every error in the envelope', async () => {
    expect(routes.map((route) => route.url)).toContain('/auth/login');
    // Fewer: a register or login costs a deliberate scrypt hash each.
    await fuzz(app, routes, { none: {}, bogus: bearer('f'.repeat(64)) }, ['ada'], Math.ceil(RUNS / 5));
  }, 30_000 + RUNS * 60);
});
