import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const EXAMPLES = resolve(__dirname, '../../examples/catalog');

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface OpenApi {
  openapi: string;
  components?: Record<string, unknown>;
  paths: Record<string, Record<string, Operation>>;
}

let backend: TestBackend;
let doc: OpenApi;
let token: string;
const ajv = new Ajv({ strict: false, allErrors: true });
const validators = new Map<string, ValidateFunction>();

/** `/runs/:id` as Fastify writes it, `/runs/{id}` as OpenAPI does. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}');

/** Checks a response against the schema the document gives its route and status. */
function expectDocumented(path: string, method: string, response: { statusCode: number; body: string; headers: Record<string, unknown> }) {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is not in /openapi.json`).toBeDefined();
  const documented = operation!.responses[String(response.statusCode)];
  expect(documented, `${method} ${path} answered ${response.statusCode}, which its schema does not list: ${response.body.slice(0, 300)}`).toBeDefined();
  const schema = documented!.content?.['application/json']?.schema;
  if (!schema || !String(response.headers['content-type'] ?? '').includes('json')) return;
  const key = `${method} ${path} ${response.statusCode}`;
  let validate = validators.get(key);
  if (!validate) validators.set(key, (validate = ajv.compile({ ...(schema as object), components: doc.components })));
  const body: unknown = response.body === '' ? null : JSON.parse(response.body);
  expect(validate(body), `${key}: ${ajv.errorsText(validate.errors)}\n${response.body.slice(0, 500)}`).toBe(true);
}

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLES, SERVICE_TOKEN: 'dispatch-secret' }, { pricedModels: ['acme/coder'] });
  const ingest = await backend.app.inject({ method: 'POST', url: '/ingest' });
  if (ingest.statusCode !== 200) throw new Error(`example ingest failed: ${ingest.body}`);
  doc = (await backend.app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApi>();
  token = (await backend.auth.register('openapi-reader')).token;
}, 120_000);

afterAll(async () => {
  await backend?.close();
});

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document listing every route the app registered', () => {
    expect(doc.openapi).toBe('3.1.0');
    const registered = backend.app.registeredRoutes.filter((route) => !route.hidden && route.method !== 'HEAD');
    expect(registered.length).toBeGreaterThan(40);
    const missing = registered.filter((route) => !doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()]);
    expect(missing).toEqual([]);
  });

  it('names the token each mutation needs', () => {
    expect(doc.paths['/jobs']!.post).toMatchObject({ security: [{ accountToken: [] }] });
    expect(doc.paths['/jobs/next']!.post).toMatchObject({ security: [{ serviceToken: [] }] });
    expect(doc.paths['/jobs/{id}/status']!.post).toMatchObject({ security: [{ jobToken: [] }] });
    expect(doc.paths['/test-cases']!.get).not.toHaveProperty('security');
  });

  it('serves a reference page at /docs', async () => {
    const page = await backend.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('swagger-ui-bundle.js');
  });
});

describe('responses match the documented schemas', () => {
  it('on the happy paths of the catalog, jobs, runs, models and operations routes', async () => {
    const samples: Array<{ method: 'GET' | 'POST' | 'PUT'; url: string; path: string; auth?: string; body?: object }> = [
      { method: 'GET', url: '/healthz', path: '/healthz' },
      { method: 'GET', url: '/readyz', path: '/readyz' },
      { method: 'GET', url: '/config', path: '/config' },
      { method: 'GET', url: '/status', path: '/status' },
      { method: 'GET', url: '/schemas', path: '/schemas' },
      { method: 'GET', url: '/test-cases', path: '/test-cases' },
      { method: 'GET', url: '/test-case-groups', path: '/test-case-groups' },
      { method: 'GET', url: '/test-cases/beacon/versions', path: '/test-cases/{slug}/versions' },
      { method: 'GET', url: '/test-cases/beacon/versions/v1.1.0', path: '/test-cases/{slug}/versions/{version}' },
      { method: 'GET', url: '/test-cases/beacon/versions/v1.1.0?engine=none', path: '/test-cases/{slug}/versions/{version}' },
      { method: 'GET', url: '/test-cases/beacon/versions/v1.1.0/specs/base', path: '/test-cases/{slug}/versions/{version}/specs/{variant}' },
      { method: 'GET', url: '/test-cases/tugline/versions/v1.0.0/validation-files', path: '/test-cases/{slug}/versions/{version}/validation-files' },
      { method: 'GET', url: '/game-jams/low-tide/prior-readmes?model=acme/coder', path: '/game-jams/{slug}/prior-readmes' },
      { method: 'GET', url: '/models', path: '/models' },
      { method: 'GET', url: '/harness-config', path: '/harness-config' },
      { method: 'GET', url: '/gg/configs', path: '/gg/configs', auth: token },
      { method: 'GET', url: '/runs', path: '/runs' },
      { method: 'GET', url: '/runs?fields=summary&offset=0', path: '/runs' },
      { method: 'GET', url: '/runs/unreadable', path: '/runs/unreadable' },
      { method: 'GET', url: '/stats/cabinet', path: '/stats/cabinet' },
      { method: 'POST', url: '/jobs', path: '/jobs', auth: token, body: { testCase: 'beacon', version: 'v1.1.0', variant: 'base', harness: 'claude', model: 'acme/coder' } },
      { method: 'POST', url: '/jobs/batch', path: '/jobs/batch', auth: token, body: { runs: [{ testCase: 'beacon', version: 'v1.1.0', variant: 'nope', harness: 'claude', model: 'acme/coder' }] } },
      { method: 'GET', url: '/jobs/active', path: '/jobs/active' },
      { method: 'POST', url: '/jobs/next', path: '/jobs/next', auth: 'dispatch-secret' },
      { method: 'POST', url: '/jobs/next', path: '/jobs/next', auth: 'dispatch-secret' },
      { method: 'PUT', url: '/harness-config/claude', path: '/harness-config/{slug}', auth: token, body: { maxParallelism: 2 } },
    ];
    for (const sample of samples) {
      const response = await backend.app.inject({
        method: sample.method,
        url: sample.url,
        headers: sample.auth ? bearer(sample.auth) : {},
        ...(sample.body === undefined ? {} : { payload: sample.body }),
      });
      expect(response.statusCode, `${sample.method} ${sample.url}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
      expectDocumented(sample.path, sample.method, response);
    }
  });

  it('and the check itself catches a body that strays from its schema', () => {
    const stray = { statusCode: 200, body: '{"status":"fine","version":1}', headers: { 'content-type': 'application/json' } };
    expect(() => expectDocumented('/healthz', 'GET', stray)).toThrow(/GET \/healthz 200/);
  });

  it('on the error path of every documented operation', async () => {
    const streaming = new Set(['/notifications']);
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (streaming.has(path)) continue;
      for (const method of Object.keys(operations)) {
        // Unknown ids everywhere, no token, no body: each route answers one of its documented errors.
        const url = path.replace(/\{[^}]+\}/g, 'no-such-thing');
        const response = await backend.app.inject({ method: method.toUpperCase() as 'GET', url });
        expect(response.statusCode, `${method.toUpperCase()} ${url}`).toBeLessThan(500);
        expectDocumented(path, method, response);
      }
    }
  });
});
