import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { startManagedPostgres } from '../../src/db/managed-postgres.js';
import { openStore, STORE_CONNECT_TIMEOUT_MS, STORE_POOL_SIZE, storeUnreachable, type OpenedStore } from '../../src/db/open-store.js';
import errorEnvelope from '../../src/http/error-envelope.js';
import { SECOND } from '../../src/time.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';
import { sqliteHandleGetter } from '../helpers/sqlite-handle.js';
import { until } from '../helpers/until.js';

const folders: string[] = [];
const opened: OpenedStore[] = [];
afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
  await stopTestPostgres();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function dataDir(): string {
  const folder = mkdtempSync(join(tmpdir(), 'evb-open-store-'));
  folders.push(folder);
  return folder;
}

async function open(env: Record<string, string>): Promise<OpenedStore> {
  const store = await openStore(loadConfig({ DATA_DIR: dataDir(), ...env }));
  opened.push(store);
  return store;
}

const migrations = (store: OpenedStore) => sql<{ n: number }>`SELECT count(*) AS n FROM schema_migrations`.execute(store.store.db);

describe('openStore', () => {
  it('opens the SQLite file under DATA_DIR when DATABASE_URL is unset', async () => {
    const store = await open({});
    expect(store.store.engine).toBe('sqlite');
    expect(store.sqlite).not.toBeNull();
    expect(store.location).toMatch(/\/backend\.sqlite$/);
    expect(existsSync(store.location)).toBe(true);
    expect((await migrations(store)).rows[0]!.n).toBeGreaterThan(0);
    expect(await storeUnreachable(store.store)).toBeNull();
  });

  it('opens a migrated PostgreSQL pool on DATABASE_URL, creates no SQLite file, and masks the password it was given', async () => {
    // The throwaway cluster trusts every local connection, so any password is taken and ignored.
    const url = (await testDatabase()).replace('postgres@', 'postgres:hunter2@');
    const folder = dataDir();
    const store = await openStore(loadConfig({ DATA_DIR: folder, DATABASE_URL: url }));
    opened.push(store);
    expect(store.store.engine).toBe('postgres');
    expect(store.sqlite).toBeNull();
    expect(store.location).toContain('postgres:***@');
    expect(store.location).not.toContain('hunter2');
    expect((await migrations(store)).rows[0]!.n).toBeGreaterThan(0);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('lets a query wait for a free connection while every one is busy, rather than failing it as an outage', async () => {
    const store = await openStore(loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: await testDatabase({ migrated: true }) }));
    opened.push(store);
    // Every connection held for longer than a connection may take to open, then one query more.
    const held = Array.from({ length: STORE_POOL_SIZE }, () => sql`SELECT pg_sleep(${(STORE_CONNECT_TIMEOUT_MS + 500) / SECOND})`.execute(store.store.db));
    const waiting = sql<{ one: number }>`SELECT 1 AS one`.execute(store.store.db);
    await Promise.all(held);
    expect((await waiting).rows).toEqual([{ one: 1 }]);
  });

  it('keeps at most DATABASE_POOL_SIZE connections open to PostgreSQL (issue 39 item 12)', async () => {
    const url = await testDatabase({ migrated: true });
    const store = await openStore(loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: url, DATABASE_POOL_SIZE: '3' }));
    opened.push(store);
    // Twice as many queries as connections, each long enough to overlap: the others wait their turn.
    await Promise.all(Array.from({ length: 6 }, () => sql`SELECT pg_sleep(0.2)`.execute(store.store.db)));
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database()`.execute(store.store.db);
    expect(Number(rows[0]!.n)).toBe(3);
  });

  it('boots the app on PostgreSQL alone: it answers requests that read the store, and creates no SQLite file', async () => {
    const folder = dataDir();
    const config = loadConfig({
      DATA_DIR: folder, DATABASE_URL: await testDatabase({ migrated: true }), REDIS_URL: inject('redisUrl'), REDIS_PREFIX: `t${randomUUID().slice(0, 8)}`, LOG_LEVEL: 'silent',
    });
    const store = await openStore(config);
    opened.push(store);
    // Every module, the background workers (RUN_WORKERS) and the statistics thread included.
    const app = await buildApp({ config: { ...config, redisUrl: inject('redisUrl'), authUrl: 'http://127.0.0.1:9' }, db: store.sqlite, store: store.store });
    try {
      const health = await app.inject('/healthz');
      expect(health.statusCode).toBe(200);
      expect(health.json()).toMatchObject({ status: 'ok', storeReady: false });
      const cabinet = await app.inject('/stats/cabinet');
      expect(cabinet.statusCode).toBe(200);
      expect(cabinet.json()).toMatchObject({ runs: 0 });
    } finally {
      await app.close();
    }
    expect(readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((path) => path.includes('.sqlite'))).toEqual([]);
  });

  it('on PostgreSQL, reading the SQLite handle fails naming the reader', () => {
    const rawHandle = sqliteHandleGetter(null);
    const context = Object.defineProperty({}, 'db', { get: rawHandle }) as { db: unknown };
    function testThatReadsTheHandle() {
      return context.db;
    }
    expect(testThatReadsTheHandle).toThrow(/PostgreSQL store, but testThatReadsTheHandle .* reads the SQLite handle: it runs on SQLite only/);
  });
});

describe('a PostgreSQL outage', () => {
  it('answers 503 store_unavailable with Retry-After within 1.5 s while the server is down, and 200 again once it is back, with no restart', async () => {
    // A cluster of this test's own: it is stopped and started again.
    const folder = mkdtempSync(join(tmpdir(), 'evb-pg-out-'));
    folders.push(folder);
    let server = await startManagedPostgres({ dir: folder });
    try {
      const store = await open({ DATABASE_URL: await server.createDatabase('outage') });
      const app = Fastify();
      await app.register(errorEnvelope);
      app.get('/count', async () => (await migrations(store)).rows[0]);
      const answer = async () => {
        const began = Date.now();
        const response = await app.inject({ method: 'GET', url: '/count' });
        return { response, ms: Date.now() - began };
      };
      expect((await answer()).response.statusCode).toBe(200);
      expect(await storeUnreachable(store.store)).toBeNull();

      await server.stop();
      // Readiness says so, within its own bound.
      expect(await storeUnreachable(store.store)).toMatch(/^The store \(PostgreSQL\) cannot be reached: /);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const { response, ms } = await answer();
        expect(response.statusCode).toBe(503);
        expect(response.json()).toEqual({ error: { code: 'store_unavailable', message: expect.stringContaining('retry') } });
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
        expect(ms).toBeLessThan(1.5 * SECOND);
      }

      server = await startManagedPostgres({ dir: folder });
      await until(async () => (await answer()).response.statusCode === 200, 10 * SECOND, 'the pool to reconnect');
      expect(await storeUnreachable(store.store)).toBeNull();
      await app.close();
    } finally {
      await server.stop();
    }
  });
});
