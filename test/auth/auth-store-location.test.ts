import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { AUTH_SCHEMA, authStoreLocation, openAuthStore } from '../../src/auth/auth-store.js';
import { buildAuthApp } from '../../src/auth/app.js';
import { dropTestDatabase, testDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'evb-auth-location-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('where the auth service keeps its accounts', () => {
  const url = 'postgres://evb@db.internal/evb';

  it('AUTH_DATABASE_URL first, then a schema of its own in DATABASE_URL\'s database, else DATA_DIR/auth.sqlite', () => {
    expect(authStoreLocation({ authDatabaseUrl: 'postgres://evb@auth.internal/auth', databaseUrl: url, dataDir })).toEqual({ url: 'postgres://evb@auth.internal/auth' });
    expect(authStoreLocation({ authDatabaseUrl: null, databaseUrl: url, dataDir })).toEqual({ url, schema: AUTH_SCHEMA });
    expect(authStoreLocation({ authDatabaseUrl: null, databaseUrl: null, dataDir })).toEqual({ file: join(dataDir, 'auth.sqlite') });
  });

  it('keeps using an auth.sqlite already in DATA_DIR when DATABASE_URL is set later, so no account is left behind', () => {
    const before = mkdtempSync(join(tmpdir(), 'evb-auth-before-'));
    try {
      writeFileSync(join(before, 'auth.sqlite'), '');
      expect(authStoreLocation({ authDatabaseUrl: null, databaseUrl: url, dataDir: before })).toEqual({ file: join(before, 'auth.sqlite') });
    } finally {
      rmSync(before, { recursive: true, force: true });
    }
  });
});

describe('the auth service in a schema of the backend\'s PostgreSQL database', () => {
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await testDatabase({ migrated: true });
  });
  afterAll(() => dropTestDatabase(databaseUrl));

  it('migrates its own tables beside the backend\'s, serves logins from them, and writes no SQLite file', async () => {
    const location = authStoreLocation({ authDatabaseUrl: null, databaseUrl, dataDir });
    // Two services starting at one moment both create the schema and migrate it.
    const stores = await Promise.all([openAuthStore(location), openAuthStore(location)]);
    await stores[1].db.destroy();
    const [store] = stores;
    const app = await buildAuthApp({ store, tokenLifetimeMs: null });
    try {
      const registered = await app.inject({ method: 'POST', url: '/auth/register', payload: { username: 'ada', password: 'correct horse battery', displayName: 'Ada' } });
      expect(registered.statusCode, registered.body).toBe(201);
      const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'ada', password: 'correct horse battery' } });
      expect(login.statusCode, login.body).toBe(200);
    } finally {
      await app.close();
      await store.db.destroy();
    }
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const tables = async (schema: string) =>
        (await client.query<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1', [schema])).rows.map((row) => row.name);
      expect(await tables(AUTH_SCHEMA)).toEqual(expect.arrayContaining(['accounts', 'tokens', 'login_failures', 'schema_migrations']));
      // The backend's own tables and migrations are untouched; it has no accounts table.
      expect(await tables('public')).toEqual(expect.arrayContaining(['jobs', 'runs', 'schema_migrations']));
      expect(await tables('public')).not.toContain('accounts');
      const { rows } = await client.query<{ accounts: number }>(`SELECT count(*)::int AS accounts FROM ${AUTH_SCHEMA}.accounts`);
      expect(rows).toEqual([{ accounts: 1 }]);
    } finally {
      await client.end();
    }
    expect(existsSync(join(dataDir, 'auth.sqlite'))).toBe(false);
  });
});

describe('the auth service on PostgreSQL when the database stops answering', () => {
  it('answers a login 503 store_unavailable within 1.5 s instead of waiting on a connection that never opens, and logs in again once it answers', async () => {
    const databaseUrl = await testDatabase();
    // postgres://postgres@/<database>?host=<socket folder>
    const [, database, host] = /^postgres:\/\/postgres@\/([^?]+)\?host=(.+)$/.exec(databaseUrl)!.map(decodeURIComponent) as [string, string, string];
    // A loopback hop in front of the server's socket that can stop forwarding: connections
    // it takes while stalled are held open and never answered, as behind a cut network.
    let stalled = false;
    const sockets = new Set<Socket>();
    const hop = createServer((client) => {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      client.on('error', () => undefined);
      if (stalled) return;
      const server = connect(join(host, '.s.PGSQL.5432'));
      server.on('error', () => client.destroy());
      client.pipe(server).pipe(client);
      client.on('close', () => server.destroy());
    });
    await new Promise<void>((listening) => hop.listen(0, '127.0.0.1', listening));
    const url = `postgres://postgres@127.0.0.1:${(hop.address() as AddressInfo).port}/${database}`;
    const store = await openAuthStore({ url });
    const app = await buildAuthApp({ store, tokenLifetimeMs: null });
    const login = async () => {
      const began = Date.now();
      const response = await app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'ada', password: 'correct horse battery' } });
      return { response, ms: Date.now() - began };
    };
    try {
      expect((await app.inject({ method: 'POST', url: '/auth/register', payload: { username: 'ada', password: 'correct horse battery', displayName: 'Ada' } })).statusCode).toBe(201);
      stalled = true;
      for (const socket of sockets) socket.destroy();
      const { response, ms } = await login();
      expect(response.statusCode, response.body).toBe(503);
      expect(response.json().error.code).toBe('store_unavailable');
      expect(ms).toBeLessThan(1500);
      stalled = false;
      await until(async () => (await login()).response.statusCode === 200, 10_000, 'the pool to connect again');
    } finally {
      await app.close();
      await store.db.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise((closed) => hop.close(closed));
      await dropTestDatabase(databaseUrl);
    }
  });
});
