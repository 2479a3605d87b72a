import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { accountStore } from '../../src/auth/account-store.js';
import { buildAuthApp } from '../../src/auth/app.js';
import { AUTH_MIGRATIONS, AUTH_POSTGRES_MIGRATIONS, openAuthStore, type AuthStore } from '../../src/auth/auth-store.js';
import { loginThrottle } from '../../src/auth/login-throttle.js';
import { postgresPool } from '../../src/db/dialect.js';
import { migratePostgres } from '../../src/db/migrate-postgres.js';
import { ENGINES } from '../helpers/engine-stores.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'evb-auth-engines-'));
const opened: AuthStore[] = [];
let files = 0;
afterAll(async () => {
  for (const store of opened.splice(0)) await store.db.destroy();
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A fresh, migrated auth store: a new SQLite file, or a new database on the file's PostgreSQL cluster. */
async function freshAuthStore(engine: (typeof ENGINES)[number]): Promise<AuthStore> {
  const store = await openAuthStore(engine === 'sqlite' ? { file: join(dir, `auth-${(files += 1)}.sqlite`) } : { url: await testDatabase() });
  opened.push(store);
  return store;
}

describe.each(ENGINES)('the auth store on %s', (engine) => {
  it('makes accounts with usernames unique in any case, and finds them ignoring case', async () => {
    const accounts = accountStore(await freshAuthStore(engine));
    const ada = await accounts.create('Ada', 'Ada L.', 'hash-1');
    expect(ada).toEqual({ id: expect.any(String), username: 'Ada', displayName: 'Ada L.' });
    expect(await accounts.create('ADA', 'Another', 'hash-2')).toBeNull();
    expect(await accounts.create('ada_2', 'Ada Two', 'hash-3')).not.toBeNull();
    expect(await accounts.findByUsername('aDa')).toEqual({ id: ada!.id, username: 'Ada', displayName: 'Ada L.', passwordHash: 'hash-1' });
    expect(await accounts.findByUsername('ad_')).toBeNull();
    expect(await accounts.findByUsername('nobody')).toBeNull();
  });

  it('answers a token until it expires or is revoked, and purges only expired ones', async () => {
    const accounts = accountStore(await freshAuthStore(engine));
    const { id } = (await accounts.create('grace', 'Grace', 'hash'))!;
    const lasting = await accounts.issueToken(id, null);
    const brief = await accounts.issueToken(id, 60_000);
    const revoked = await accounts.issueToken(id, 60_000);
    expect(await accounts.accountForToken(brief)).toEqual({ id, username: 'grace', displayName: 'Grace' });
    await accounts.revokeToken(revoked);
    expect(await accounts.accountForToken(revoked)).toBeNull();
    expect(await accounts.accountForToken('not-a-token')).toBeNull();

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    expect(await accounts.accountForToken(brief)).toBeNull();
    expect(await accounts.accountForToken(lasting)).not.toBeNull();
    expect(await accounts.purgeExpired()).toBe(1);
    expect(await accounts.purgeExpired()).toBe(0);
  });

  it('throttles failed logins per username and address, counts a burst before any password is checked, and forgets a window once it ends', async () => {
    const store = await freshAuthStore(engine);
    // The address budget holds the whole burst, so only the username's budget refuses in it.
    const throttle = loginThrottle(store, { perAccountAddress: { failures: 2, windowMs: 60_000 }, perAddress: { failures: 5, windowMs: 60_000 } });
    const burst = await Promise.all(Array.from({ length: 5 }, () => throttle.attempt('Ada', '10.0.0.1')));
    expect(burst.filter((waitMs) => waitMs === 0)).toHaveLength(2);
    for (const waitMs of burst.filter((waitMs) => waitMs > 0)) expect(waitMs).toBeLessThanOrEqual(60_000);
    // The refused attempts were not counted: the address has spent 2 of its 5.
    for (const username of ['bob', 'dee', 'eve']) expect(await throttle.attempt(username, '10.0.0.1')).toBe(0);
    expect(await throttle.attempt('cy', '10.0.0.1')).toBeGreaterThan(0);
    expect(await throttle.attempt('ada', '10.0.0.2')).toBe(0);

    // A right password takes its attempt back and starts its username's count over.
    await throttle.succeeded('ada', '10.0.0.2');
    expect(await throttle.attempt('ada', '10.0.0.2')).toBe(0);
    expect(await throttle.attempt('ada', '10.0.0.2')).toBe(0);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    expect(await throttle.purgeExpired()).toBeGreaterThan(0);
    expect(await throttle.attempt('ada', '10.0.0.1')).toBe(0);
    const counters = await store.db.selectFrom('login_failures').select(['key', 'points']).orderBy('key').execute();
    expect(counters).toEqual([{ key: 'account-address:ada|10.0.0.1', points: 1 }, { key: 'address:10.0.0.1', points: 1 }]);
  });

  it('serves register, login, verify and logout over it', async () => {
    const app = await buildAuthApp({ store: await freshAuthStore(engine), tokenLifetimeMs: null });
    try {
      const registered = await app.inject({ method: 'POST', url: '/auth/register', payload: { username: 'Dee', password: 'right password', displayName: 'Dee' } });
      expect(registered.statusCode).toBe(201);
      expect((await app.inject({ method: 'POST', url: '/auth/register', payload: { username: 'dee', password: 'right password', displayName: 'x' } })).statusCode).toBe(409);
      const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'DEE', password: 'right password' } });
      expect(login.statusCode).toBe(200);
      const headers = { authorization: `Bearer ${login.json<{ token: string }>().token}` };
      expect((await app.inject({ method: 'POST', url: '/auth/verify', headers })).json()).toMatchObject({ username: 'Dee' });
      expect((await app.inject({ method: 'POST', url: '/auth/logout', headers })).statusCode).toBe(204);
      expect((await app.inject({ method: 'POST', url: '/auth/verify', headers })).statusCode).toBe(401);
      expect((await app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'dee', password: 'wrong password' } })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('the auth store on PostgreSQL', () => {
  it('has a twin of every SQLite migration, same number and name', () => {
    expect(readdirSync(AUTH_POSTGRES_MIGRATIONS).sort()).toEqual(readdirSync(AUTH_MIGRATIONS).sort());
  });

  it('refuses a database the backend migrated, as it needs one of its own', async () => {
    const url = await testDatabase();
    const pool = postgresPool({ connectionString: url });
    try {
      await migratePostgres(pool);
    } finally {
      await pool.end();
    }
    await expect(openAuthStore({ url })).rejects.toThrow(/holds another store's migrations \(0001_store_meta\.sql\): give the auth service a database of its own/);
  });
});
