import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashToken } from '../../src/auth/account-store.js';
import { startTestAuth, type TestAuth } from '../helpers/test-auth.js';

let auth: TestAuth;
beforeAll(async () => {
  auth = await startTestAuth();
});
afterAll(() => auth.close());

const post = (path: string, body?: unknown, token?: string) =>
  auth.app.inject({
    method: 'POST',
    url: path,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body === undefined ? {} : { payload: body as object }),
  });

describe('auth service', () => {
  it('registers an account and answers a token that verifies', async () => {
    const response = await post('/auth/register', { username: 'ada', password: 'analytical', displayName: 'Ada L.' });
    expect(response.statusCode).toBe(201);
    const { token, account } = response.json();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(account).toMatchObject({ username: 'ada', displayName: 'Ada L.' });

    const verified = await post('/auth/verify', undefined, token);
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toEqual(account);
  });

  it('stores only hashes of tokens and passwords', async () => {
    const { token } = (await post('/auth/register', { username: 'grace', password: 'compilers', displayName: 'Grace' })).json();
    const stored = auth.db.prepare('SELECT token_hash FROM tokens').pluck().all();
    expect(stored).toContain(hashToken(token));
    expect(stored).not.toContain(token);
    const passwordHash = auth.db.prepare("SELECT password_hash FROM accounts WHERE username = 'grace'").pluck().get() as string;
    expect(passwordHash).toMatch(/^scrypt\$/);
    expect(passwordHash).not.toContain('compilers');
  });

  it('refuses a short password (400) and a taken username (409, case-insensitive)', async () => {
    const short = await post('/auth/register', { username: 'bob', password: 'seven77', displayName: 'Bob' });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.message).toContain('body.password');
    const taken = await post('/auth/register', { username: 'ADA', password: 'something long', displayName: 'Other' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toEqual({ code: 'conflict', message: 'The username ADA is taken.' });
  });

  it('logs in with the right password and gives one 401 for unknown user and wrong password', async () => {
    const ok = await post('/auth/login', { username: 'ada', password: 'analytical' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().account.username).toBe('ada');

    const wrong = await post('/auth/login', { username: 'ada', password: 'difference engine' });
    const unknown = await post('/auth/login', { username: 'nobody', password: 'difference engine' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
  });

  it('logout revokes the token and is idempotent', async () => {
    const { token } = (await post('/auth/login', { username: 'ada', password: 'analytical' })).json();
    expect((await post('/auth/logout', undefined, token)).statusCode).toBe(204);
    expect((await post('/auth/logout', undefined, token)).statusCode).toBe(204);
    expect((await post('/auth/verify', undefined, token)).statusCode).toBe(401);
  });

  it('verify is 401 without a token or with a made-up one', async () => {
    expect((await post('/auth/verify')).statusCode).toBe(401);
    expect((await post('/auth/verify', undefined, 'f'.repeat(64))).json().error.code).toBe('unauthorized');
  });
});

describe('token lifetime', () => {
  it('expires tokens after the configured lifetime', async () => {
    const shortLived = await startTestAuth({ tokenLifetimeMs: 1500 });
    try {
      const { token } = await shortLived.register('brief');
      const verify = () => shortLived.app.inject({ method: 'POST', url: '/auth/verify', headers: { authorization: `Bearer ${token}` } });
      // Only the clock moves, never a wait: expiry is read from the date.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1400 });
      expect((await verify()).statusCode).toBe(200);
      vi.setSystemTime(Date.now() + 200);
      expect((await verify()).statusCode).toBe(401);
    } finally {
      vi.useRealTimers();
      await shortLived.close();
    }
  });
});
