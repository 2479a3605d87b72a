import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/json-depth.js';
import { MAX_PARAM_LENGTH } from '../../src/contract/common.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
const json = { 'content-type': 'application/json' };

let backend: TestBackend;
let base: string;
let operator: string;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: [launch.model] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  operator = (await backend.auth.register('operator')).token;
});
afterAll(() => backend.close());

const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: string, headers: Record<string, string> = {}) =>
  backend.app.inject({ method, url, headers: { ...(payload === undefined ? {} : json), ...headers }, ...(payload === undefined ? {} : { payload }) });
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

async function runningJob() {
  expect((await send('POST', '/jobs', JSON.stringify(launch), bearer(operator))).statusCode).toBe(202);
  const claimed = (await send('POST', '/jobs/next', undefined, bearer(SERVICE))).json() as { jobId: string; jobToken: string };
  expect((await send('POST', `/jobs/${claimed.jobId}/status`, '{"state":"running"}', bearer(claimed.jobToken))).statusCode).toBe(204);
  return claimed;
}

describe('JSON nesting depth', () => {
  const tooDeep = { error: { code: 'bad_request', message: `The JSON body nests objects and arrays deeper than the limit of ${MAX_JSON_DEPTH} levels.` } };

  it('refuses gg capability sets, gg configurations and relayed events nested 5,000 deep (400 naming the limit)', async () => {
    const config = (set: string) => `{"name":"deep","capabilitySet":{"agents":[{"name":"root","modelId":"openai/gpt-5","capabilities":{"tools":${set}}}]},"slotModels":{}}`;
    const created = await send('POST', '/gg/configs', config(nested(5_000)), bearer(operator));
    expect(created.statusCode).toBe(400);
    expect(created.json()).toEqual(tooDeep);
    const saved = await send('POST', '/gg/configs', config(nested(20)), bearer(operator));
    expect(saved.statusCode).toBe(201);
    expect((await send('PUT', `/gg/configs/${saved.json().id}`, config(nested(5_000)), bearer(operator))).json()).toEqual(tooDeep);
    const ggRun = await send('POST', '/gg/runs', `{"testCase":"carom","version":"v1.1.0","capabilitySet":{"a":${nested(5_000)}}}`, bearer(operator));
    expect(ggRun.json()).toEqual(tooDeep);

    const job = await runningJob();
    const events = await send('POST', `/jobs/${job.jobId}/events`, `[{"kind":"tool","input":${nested(5_000)}}]`, bearer(job.jobToken));
    expect(events.statusCode).toBe(400);
    expect(events.json()).toEqual(tooDeep);
    // Depth inside strings is text, not nesting; a body at the limit is accepted.
    const atLimit = `[{"kind":"note","text":"${'['.repeat(10_000)}","input":${nested(MAX_JSON_DEPTH - 2)}}]`;
    expect((await send('POST', `/jobs/${job.jobId}/events`, atLimit, bearer(job.jobToken))).statusCode).toBe(204);
  });

  it('refuses a run record nested 5,000 deep and fails the job saying why, instead of leaving it running', async () => {
    const job = await runningJob();
    const deep = await send('POST', `/jobs/${job.jobId}/status`, `{"state":"failed","record":{"id":"run-deep","extra":${nested(5_000)}}}`, bearer(job.jobToken));
    expect(deep.statusCode).toBe(400);
    expect(deep.json()).toEqual(tooDeep);
    expect((await send('GET', `/jobs/${job.jobId}`)).json()).toMatchObject({
      state: 'failed', recordId: null, detail: `The driver's status report could not be read: ${tooDeep.error.message}`,
    });
    // Only its own driver can do that: without the job's token the body is never read.
    const other = await runningJob();
    expect((await send('POST', `/jobs/${other.jobId}/status`, `{"state":"running","x":${nested(5_000)}}`)).statusCode).toBe(401);
    expect((await send('GET', `/jobs/${other.jobId}`)).json()).toMatchObject({ state: 'running' });
  });
});

describe('numeric query parameters', () => {
  it.each([
    ['/runs?fields=summary&offset=99999999999999999999', 'querystring.offset must be <= 1000000000.'],
    ['/runs?fields=summary&offset=1e309', 'querystring.offset must be a finite number.'],
    ['/runs?limit=1e309', 'querystring.limit must be a finite number.'],
    ['/runs/unreadable?offset=99999999999999999999', 'querystring.offset must be <= 1000000000.'],
    ['/runs/unreadable?limit=1e309', 'querystring.limit must be a finite number.'],
  ])('%s answers 400 naming the parameter', async (url, message) => {
    const response = await send('GET', url);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'bad_request', message } });
  });

  it('still reads numbers from the query string', async () => {
    expect((await send('GET', '/runs/unreadable?offset=0&limit=5')).json()).toEqual({ runs: [], total: 0 });
  });
});

describe('bodies are not coerced', () => {
  it.each([
    ['POST', '/ingest', '{"force":"true"}', 'body.force must be boolean.'],
    ['PUT', '/harness-config/codex', '{"maxParallelism":true}', 'body.maxParallelism must be integer,null.'],
    ['PUT', '/harness-config/codex', '{"maxParallelism":"3"}', 'body.maxParallelism must be integer,null.'],
    ['POST', '/models', '{"slug":12345}', 'body.slug must be string.'],
    ['POST', '/jobs', JSON.stringify({ ...launch, maxRuntimeSeconds: '60' }), 'body.maxRuntimeSeconds must be integer,null.'],
  ] as const)('%s %s %s answers 400 naming the field', async (method, url, payload, message) => {
    const response = await send(method, url, payload, bearer(operator));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'bad_request', message } });
  });

  it('leaves the harness cap and the model catalog unchanged', async () => {
    expect((await send('GET', '/harness-config')).json().harnesses).not.toContainEqual({ slug: 'codex', maxParallelism: expect.any(Number) });
    expect(JSON.stringify((await send('GET', '/models')).json())).not.toContain('12345');
  });
});

describe('errors the router and the body parser raise', () => {
  it('answers a malformed percent-encoding (400) and an over-long path segment (414) in the envelope', async () => {
    const badUrl = await send('GET', '/runs/%E0%A4%A');
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json()).toEqual({ error: { code: 'bad_request', message: 'The URL /runs/%E0%A4%A is not valid: a path segment holds malformed percent-encoding.' } });
    const long = await send('GET', `/runs/${'r'.repeat(MAX_PARAM_LENGTH + 1)}`);
    expect(long.statusCode).toBe(414);
    expect(long.json().error).toEqual({ code: 'uri_too_long', message: expect.stringContaining(`longer than the limit of ${MAX_PARAM_LENGTH} characters`) });
  });

  it('lets a run id as long as its schema allows reach the route (the router bound agrees with RunIdParams)', async () => {
    const id = 'r'.repeat(200);
    expect((await send('GET', `/runs/${id}`)).json()).toEqual({ error: { code: 'not_found', message: expect.stringContaining(id) } });
    expect((await send('GET', `/runs/${id}r`)).json().error.message).toBe('params.id must NOT have more than 200 characters.');
  });

  it('answers unknown routes with 404 in the envelope', async () => {
    expect((await send('GET', '/no/such/route')).json()).toEqual({ error: { code: 'not_found', message: 'No route GET /no/such/route.' } });
  });

  it('answers an oversized JSON body with 413 naming the limit, and a foreign media type with 415', async () => {
    const big = await send('POST', '/gg/configs', JSON.stringify({ name: 'x'.repeat(1_100_000) }), bearer(operator));
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ error: { code: 'payload_too_large', message: 'The request body is larger than the limit of 1 MiB for POST /gg/configs.' } });
    const xml = await send('POST', '/gg/configs', '<config/>', { ...bearer(operator), 'content-type': 'application/xml' });
    expect(xml.statusCode).toBe(415);
    expect(xml.json().error).toEqual({ code: 'unsupported_media_type', message: expect.stringContaining('application/xml') });
  });

  it('reads a bodyless POST sent as application/json as no body: accepted where the body is optional, 400 where it is required', async () => {
    const sweep = await send('POST', '/jobs/cancel-all', '', bearer(operator));
    expect(sweep.statusCode).toBe(200);
    const config = await send('POST', '/gg/configs', '', bearer(operator));
    expect(config.statusCode).toBe(400);
    expect(config.json().error.message).toMatch(/^body /);
  });

  it('answers headers over the server limit with 431 in the envelope', async () => {
    const answer = await rawRequest(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: { code: 'headers_too_large', message: expect.stringContaining('headers') } });
  });
});

function rawRequest(text: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((done, fail) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => done(answer));
    socket.on('error', (error) => (answer ? done(answer) : fail(error)));
  });
}

describe('a NUL character', () => {
  // PostgreSQL text cannot hold one and SQLite's can: both engines refuse it alike, naming the field.
  it('in a path parameter or query field is refused with 400 naming it, on either store', async () => {
    const path = await backend.app.inject({ method: 'DELETE', url: '/ladders/%00', headers: bearer(operator) });
    expect(path.statusCode).toBe(400);
    expect(path.json().error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('params.id must not contain a NUL character') });
    const query = await backend.app.inject({ method: 'GET', url: '/runs?q=a%00b', headers: bearer(operator) });
    expect(query.statusCode).toBe(400);
    expect(query.json().error.message).toContain('querystring.q must not contain a NUL character');
  });
});
