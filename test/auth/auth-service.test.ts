import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { hashToken } from '../../src/auth/account-store.js';
import { buildAuthApp } from '../../src/auth/app.js';
import { relayedClientHeaders } from '../../src/auth/relayed-client.js';
import { AUTH_MIGRATIONS } from '../../src/auth/auth-store.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import { startTestAuth, type TestAuth } from '../helpers/test-auth.js';
import { fillStore } from '../helpers/temp-store.js';
import { TEST_ENGINE } from '../helpers/test-backend.js';

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
    const stored = (await auth.store.db.selectFrom('tokens').select('token_hash').execute()).map((row) => row.token_hash);
    expect(stored).toContain(hashToken(token));
    expect(stored).not.toContain(token);
    const { password_hash: passwordHash } = await auth.store.db.selectFrom('accounts').select('password_hash').where('username', '=', 'grace').executeTakeFirstOrThrow();
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
      const { expires_at: storedExpiry } = await shortLived.store.db.selectFrom('tokens').select('expires_at').where('token_hash', '=', hashToken(token)).executeTakeFirstOrThrow();
      const expiresAt = Date.parse(storedExpiry!);
      // Only the clock moves, never a wait: the token is good until its expiry and not after.
      vi.useFakeTimers({ toFake: ['Date'], now: expiresAt - 100 });
      expect((await verify()).statusCode).toBe(200);
      vi.setSystemTime(expiresAt + 1);
      expect((await verify()).statusCode).toBe(401);
    } finally {
      vi.useRealTimers();
      await shortLived.close();
    }
  });
});

describe('failed-login throttle', () => {
  const limits = { perAccountAddress: { failures: 3, windowMs: 60_000 }, perAddress: { failures: 5, windowMs: 60_000 } };
  let dir: string;
  let db: Database;
  let app: FastifyInstance;

  const relayToken = 'relay-secret';
  const login = (username: string, password: string, remoteAddress: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/auth/login', remoteAddress, headers, payload: { username, password } });
  const statuses = async (attempts: Array<Promise<{ statusCode: number }>>) => (await Promise.all(attempts)).map((answer) => answer.statusCode);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evb-throttle-'));
    db = openDatabase(join(dir, 'auth.sqlite'), AUTH_MIGRATIONS);
    app = await buildAuthApp({ store: sqliteStore(db), tokenLifetimeMs: null, loginLimits: limits, relayToken });
    for (const username of ['ada', 'bob', 'cy', 'dee', 'eve']) {
      await app.inject({ method: 'POST', url: '/auth/register', payload: { username, password: 'right password', displayName: username } });
    }
  });
  afterAll(async () => {
    vi.useRealTimers();
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a username from an address once its failures are spent (429, Retry-After, envelope), even with the right password, until the window ends', async () => {
    expect(await statuses([1, 2, 3].map(() => login('ada', 'wrong password', '10.0.0.1')))).toEqual([401, 401, 401]);
    const refused = await login('ADA', 'right password', '10.0.0.1');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.json()).toEqual({ error: { code: 'too_many_requests', message: expect.stringMatching(/^Too many failed logins for ADA from this address; try again in \d+ s\.$/) } });

    // Somebody else's failures never slow the account's owner at another address.
    expect((await login('ada', 'right password', '10.0.0.2')).statusCode).toBe(200);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    expect((await login('ada', 'right password', '10.0.0.1')).statusCode).toBe(200);
    vi.useRealTimers();
  });

  it('refuses an address spraying many usernames once its own budget is spent, and only that address', async () => {
    expect(await statuses(['u1', 'u2', 'u3', 'u4', 'u5'].map((username) => login(username, 'guess', '10.0.0.3')))).toEqual([401, 401, 401, 401, 401]);
    expect((await login('bob', 'right password', '10.0.0.3')).statusCode).toBe(429);
    expect((await login('bob', 'right password', '10.0.0.4')).statusCode).toBe(200);
  });

  it('counts concurrent guesses before any password is checked, so a burst gets no more tries than the budget', async () => {
    const burst = await statuses(Array.from({ length: 8 }, () => login('cy', 'wrong password', '10.0.0.7')));
    expect(burst.filter((status) => status === 401)).toHaveLength(3);
    expect(burst.filter((status) => status === 429)).toHaveLength(5);
  });

  it('starts a username\'s count from an address over after a right password', async () => {
    expect(await statuses([login('bob', 'wrong password', '10.0.0.5'), login('bob', 'wrong password', '10.0.0.5')])).toEqual([401, 401]);
    expect((await login('bob', 'right password', '10.0.0.5')).statusCode).toBe(200);
    expect(await statuses([1, 2, 3].map(() => login('bob', 'wrong password', '10.0.0.5')))).toEqual([401, 401, 401]);
  });

  it('throttles a login the backend relays by the client address it names, so the relaying host is not locked out', async () => {
    const relayed = (address: string) => relayedClientHeaders(relayToken, address);
    expect(await statuses([1, 2, 3].map(() => login('dee', 'wrong password', '127.0.0.1', relayed('198.51.100.1'))))).toEqual([401, 401, 401]);
    const refused = await login('dee', 'right password', '127.0.0.1', relayed('198.51.100.1'));
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login('dee', 'right password', '127.0.0.1', relayed('198.51.100.2'))).statusCode).toBe(200);
    expect((await login('dee', 'right password', '127.0.0.1')).statusCode).toBe(200);
  });

  it('counts a login naming another address without the relay token, or through forwarding headers, against its own peer', async () => {
    const spoofs: Array<Record<string, string>> = [
      { 'x-auth-client-address': '198.51.100.7' },
      { 'x-auth-relay-token': 'guessed', 'x-auth-client-address': '198.51.100.8' },
      { 'x-forwarded-for': '198.51.100.9', 'x-real-ip': '198.51.100.9', forwarded: 'for=198.51.100.9' },
    ];
    expect(await statuses(spoofs.map((headers) => login('eve', 'wrong password', '10.0.0.9', headers)))).toEqual([401, 401, 401]);
    expect((await login('eve', 'right password', '10.0.0.9', { 'x-auth-client-address': '198.51.100.10' })).statusCode).toBe(429);
  });

  it('keeps its counts across a restart of the auth service', async () => {
    expect(await statuses([1, 2, 3].map(() => login('cy', 'wrong password', '10.0.0.6')))).toEqual([401, 401, 401]);
    await app.close();
    db.close();
    db = openDatabase(join(dir, 'auth.sqlite'), AUTH_MIGRATIONS);
    app = await buildAuthApp({ store: sqliteStore(db), tokenLifetimeMs: null, loginLimits: limits });
    expect((await login('cy', 'right password', '10.0.0.6')).statusCode).toBe(429);
  });
});

// SQLite only: the disk is filled through SQLite's page limit. PostgreSQL has no such limit to
// reach from a test; its disk-full SQLSTATE (53100) is read in the same place, src/db/storage-full.ts.
describe.skipIf(TEST_ENGINE === 'postgres')('a full disk (SQLite)', () => {
  it('answers a login with the right password 503 storage_full with Retry-After, never 500, until there is room again', async () => {
    await auth.register('dora');
    const lift = fillStore(auth.db);
    const login = (remoteAddress: string) =>
      auth.app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { username: 'dora', password: 'correct horse battery' } });
    let refused;
    try {
      // Each address's first login writes new throttle rows and a token; one will not fit.
      for (let i = 0; i < 500 && !refused; i += 1) {
        const response = await login(`10.9.${Math.floor(i / 250)}.${i % 250}`);
        expect(response.statusCode, response.body).not.toBe(500);
        if (response.statusCode !== 200) refused = response;
      }
      expect(refused?.statusCode).toBe(503);
      expect(refused?.headers['retry-after']).toBe('30');
      expect(refused?.json().error.code).toBe('storage_full');
    } finally {
      lift();
    }
    expect((await login('10.9.9.9')).statusCode).toBe(200);
  });
});
