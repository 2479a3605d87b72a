import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestBackend, bearer, type TestBackend } from '../helpers/test-backend.js';
import { errorResponses } from '../../src/contract/common.js';
import { tokenVerifier } from '../../src/accounts/verify-token.js';
import { HttpError } from '../../src/errors.js';
import { listenOnLoopback } from '../fakes/loopback-server.js';
import { httpError } from '../helpers/http-error.js';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: 'dispatch-secret' });
  // Routes that exercise the shared plugins the way real routes use them.
  backend.app.post('/test/whoami', {
    config: { auth: 'account' },
    schema: {
      body: Type.Object({ note: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
      response: { 200: Type.Object({ id: Type.String(), username: Type.String() }), ...errorResponses(400, 401, 502) },
    },
  }, async (request) => ({ id: request.account!.id, username: request.account!.username }));
  backend.app.post('/test/claim', { config: { auth: 'service' } }, async () => ({ claimed: true }));
  backend.app.get('/test/boom', async () => {
    throw new Error('secret internals: /etc/shadow');
  });
});
afterAll(() => backend.close());

const whoami = (headers: Record<string, string>, payload: object = { note: 'hi', count: 1 }) =>
  backend.app.inject({ method: 'POST', url: '/test/whoami', headers, payload });

describe('account authentication', () => {
  it('accepts a token the auth service verifies and takes the account from it', async () => {
    const { token, account } = await backend.auth.register('alice');
    const response = await whoami(bearer(token));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: account.id, username: 'alice' });
  });

  it('answers 401 without a token and with an invalid one', async () => {
    const missing = await whoami({});
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('unauthorized');
    const invalid = await whoami(bearer('0'.repeat(64)));
    expect(invalid.statusCode).toBe(401);
    expect(invalid.json().error.message).toBe('The bearer token is not valid.');
  });
});

describe('service token', () => {
  it('guards dispatcher routes with SERVICE_TOKEN', async () => {
    const post = (headers: Record<string, string>) => backend.app.inject({ method: 'POST', url: '/test/claim', headers });
    expect((await post({})).statusCode).toBe(401);
    expect((await post(bearer('wrong'))).statusCode).toBe(401);
    expect((await post(bearer('dispatch-secret'))).statusCode).toBe(200);
  });
});

describe('error envelope', () => {
  it('names the offending field on schema errors', async () => {
    const { token } = await backend.auth.register('fields');
    const cases: Array<[object, string]> = [
      [{ count: 1 }, 'body.note is required.'],
      [{ note: 'x', count: 0 }, 'body.count must be >= 1.'],
      [{ note: 'x', count: 1, extra: true }, 'body.extra is not a known field.'],
    ];
    for (const [payload, message] of cases) {
      const response = await whoami(bearer(token), payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: { code: 'bad_request', message } });
    }
  });

  it('answers 400 for a body that is not JSON', async () => {
    const { token } = await backend.auth.register('json');
    const response = await backend.app.inject({
      method: 'POST', url: '/test/whoami', headers: { ...bearer(token), 'content-type': 'application/json' }, payload: '{"note":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('bad_request');
  });

  it('hides the internals of a server fault', async () => {
    const response = await backend.app.inject('/test/boom');
    expect(response.statusCode).toBe(500);
    expect(response.json().error.code).toBe('internal');
    expect(response.body).not.toContain('shadow');
    expect(response.json().error.message).toMatch(/^The server failed to handle this request \(request id [0-9a-f]{12}-[0-9a-z]+\)\.$/);
  });
});

describe('auth service outage', () => {
  it('answers 502 when the auth service is unreachable', async () => {
    const isolated = await startTestBackend();
    try {
      const { token } = await isolated.auth.register('bea');
      isolated.app.post('/test/protected', { config: { auth: 'account' } }, async () => ({ ok: true }));
      await isolated.auth.app.close();
      const response = await isolated.app.inject({ method: 'POST', url: '/test/protected', headers: bearer(token) });
      expect(response.statusCode).toBe(502);
      expect(response.json().error).toEqual({ code: 'auth_unavailable', message: 'The auth service could not be reached.' });
    } finally {
      await isolated.close();
    }
  });
});

describe('token cache', () => {
  it('reuses a positive answer within the cache bound and asks again after it', async () => {
    const { startTestAuth } = await import('../helpers/test-auth.js');
    const auth = await startTestAuth();
    try {
      const { token } = await auth.register('cached');
      const verifier = tokenVerifier({ authUrl: auth.url, cacheMs: 150 });
      expect((await verifier.verify(token)).username).toBe('cached');
      await fetch(`${auth.url}/auth/logout`, { method: 'POST', headers: bearer(token) });
      expect((await verifier.verify(token)).username).toBe('cached');
      // Only the clock moves past the bound; the HTTP round trips keep real timers.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 151);
      await expect(verifier.verify(token)).rejects.toBeInstanceOf(HttpError);
    } finally {
      vi.useRealTimers();
      await auth.close();
    }
  });
});

describe('answers of the auth service', () => {
  it.each([
    ['an empty object', 200, '{}'],
    ['an id that is not a string', 200, '{"id":1,"username":"mallory","displayName":"M"}'],
    ['an empty id', 200, '{"id":"","username":"mallory","displayName":"M"}'],
    ['a bare string', 200, '"ok"'],
    ['text that is not JSON', 200, 'welcome'],
    ['a 204 without a body', 204, ''],
    ['a 201 with an account', 201, '{"id":"a","username":"mallory","displayName":"M"}'],
  ])('treats %s as the auth service being unavailable (502), never as an account', async (_what, status, body) => {
    const fake = await listenOnLoopback((_request, response) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    try {
      const verifier = tokenVerifier({ authUrl: fake.origin, cacheMs: 0 });
      const error = await httpError(verifier.verify('some-token'));
      expect(error.code).toBe('auth_unavailable');
    } finally {
      await fake.close();
    }
  });

  it('keeps only the account fields of a valid answer', async () => {
    const fake = await listenOnLoopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"a1","username":"ada","displayName":"Ada","admin":true}');
    });
    try {
      expect(await tokenVerifier({ authUrl: fake.origin, cacheMs: 0 }).verify('t')).toEqual({ id: 'a1', username: 'ada', displayName: 'Ada' });
    } finally {
      await fake.close();
    }
  });
});
