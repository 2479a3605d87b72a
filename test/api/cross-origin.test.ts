import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAuth, type TestAuth } from '../helpers/test-auth.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

/**
 * A console page served from another origin, as a browser drives it: a preflight before any
 * call that carries a bearer token or a JSON body, then the call itself, over a real socket.
 */
const CONSOLE = 'https://console.example';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One raw HTTP exchange; for streams, resolves on the response head and drops the socket. */
function exchange(base: string, method: string, path: string, headers: Record<string, string>, body?: string, headOnly = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      if (headOnly) {
        resolve({ status: res.statusCode!, headers: res.headers, body: '' });
        res.destroy();
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const preflight = (base: string, path: string, method: string, origin = CONSOLE) =>
  exchange(base, 'OPTIONS', path, {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'authorization,content-type',
  });

/** What a browser checks before it lets a page send `method` with a bearer token and JSON. */
function expectPreflightAllows(answer: Answer, method: string, origin: string) {
  expect(answer.status).toBe(204);
  expect(answer.headers['access-control-allow-origin']).toBe(origin);
  expect(String(answer.headers['access-control-allow-methods']).split(',').map((m) => m.trim())).toContain(method);
  expect(answer.headers['access-control-allow-headers']).toBe('authorization,content-type');
  expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
}

describe('the backend, called from another origin', () => {
  let backend: TestBackend;
  let base: string;
  let token: string;

  beforeAll(async () => {
    backend = await startTestBackend();
    base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
    token = (await backend.auth.register('ada')).token;
  });
  afterAll(() => backend.close());

  it('answers the preflight of a token-bearing write with 204, its methods and the requested headers', async () => {
    expectPreflightAllows(await preflight(base, '/models', 'POST'), 'POST', '*');
    expectPreflightAllows(await preflight(base, '/harness-config/codex', 'PUT'), 'PUT', '*');
    expectPreflightAllows(await preflight(base, '/gg/configs/abc', 'DELETE'), 'DELETE', '*');
    // An OPTIONS that is no preflight is answered alike, never with a bare-text error.
    const bare = await exchange(base, 'OPTIONS', '/models', {});
    expect([bare.status, bare.body]).toEqual([204, '']);
  });

  it('serves the call itself with the bearer token, naming the allowed origin on the answer', async () => {
    const answer = await exchange(base, 'PUT', '/harness-config/codex', {
      origin: CONSOLE,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    }, JSON.stringify({ maxParallelism: 2 }));
    expect(answer.status, answer.body).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(answer.body).harnesses).toContainEqual({ slug: 'codex', name: 'Codex', maxParallelism: 2 });
  });

  it('names the origin on reads, on error envelopes and on the console stream', async () => {
    const read = await exchange(base, 'GET', '/models', { origin: CONSOLE });
    expect(read.headers['access-control-allow-origin']).toBe('*');
    const refused = await exchange(base, 'POST', '/jobs', { origin: CONSOLE, 'content-type': 'application/json' }, '{}');
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    // The stream takes the raw socket over; a browser's EventSource still needs the header.
    const stream = await exchange(base, 'GET', '/notifications', { origin: CONSOLE, accept: 'text/event-stream' }, undefined, true);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toContain('text/event-stream');
    expect(stream.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('the backend with CORS_ORIGINS naming the console', () => {
  let backend: TestBackend;
  let base: string;

  beforeAll(async () => {
    backend = await startTestBackend({ CORS_ORIGINS: `${CONSOLE},http://localhost:5173` });
    base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => backend.close());

  it('allows the named origins and gives any other page nothing to read', async () => {
    expectPreflightAllows(await preflight(base, '/models', 'POST'), 'POST', CONSOLE);
    expectPreflightAllows(await preflight(base, '/models', 'POST', 'http://localhost:5173'), 'POST', 'http://localhost:5173');
    const stranger = await preflight(base, '/models', 'POST', 'https://elsewhere.example');
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    const read = await exchange(base, 'GET', '/models', { origin: 'https://elsewhere.example' });
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
    expect(read.headers.vary).toContain('Origin');
  });
});

describe('the auth service, called from another origin', () => {
  let auth: TestAuth;

  beforeAll(async () => {
    auth = await startTestAuth();
  });
  afterAll(() => auth.close());

  it('answers the preflight and the bearer-token verify a console sends to sign a user in', async () => {
    expectPreflightAllows(await preflight(auth.url, '/auth/login', 'POST'), 'POST', '*');
    expectPreflightAllows(await preflight(auth.url, '/auth/verify', 'POST'), 'POST', '*');
    const { token } = await auth.register('grace');
    const verified = await exchange(auth.url, 'POST', '/auth/verify', { origin: CONSOLE, authorization: `Bearer ${token}` });
    expect(verified.status).toBe(200);
    expect(verified.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(verified.body)).toMatchObject({ username: 'grace' });
  });
});
