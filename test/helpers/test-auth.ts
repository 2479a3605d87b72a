import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildAuthApp, type AuthAppOptions } from '../../src/auth/app.js';
import { AUTH_MIGRATIONS, openAuthStore, type AuthStore } from '../../src/auth/auth-store.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import { sqliteHandleGetter } from './sqlite-handle.js';
import { dropTestDatabase, testDatabase } from './postgres.js';
import { TEST_ENGINE } from './test-backend.js';

export interface TestAuth {
  url: string;
  app: FastifyInstance;
  /** The auth store's SQLite handle, for the SQLite-only tests that look into the file (throws on PostgreSQL). */
  readonly db: Database;
  store: AuthStore;
  /** Registers an account and returns its bearer token. */
  register(username: string, displayName?: string): Promise<{ token: string; account: { id: string; username: string; displayName: string } }>;
  close(): Promise<void>;
}

/**
 * A real auth service on a loopback port, on the engine the tests run on: its own SQLite
 * file, or in the PostgreSQL half a database of its own on the run's cluster.
 */
export async function startTestAuth(options: Pick<AuthAppOptions, 'relayToken' | 'registration'> & { tokenLifetimeMs?: number | null } = {}): Promise<TestAuth> {
  const databaseUrl = TEST_ENGINE === 'postgres' ? await testDatabase() : null;
  const sqlite = databaseUrl ? null : openDatabase(join(mkdtempSync(join(tmpdir(), 'evb-auth-')), 'auth.sqlite'), AUTH_MIGRATIONS);
  const store: AuthStore = sqlite ? sqliteStore(sqlite) : await openAuthStore({ url: databaseUrl! });
  const { tokenLifetimeMs = null, ...rest } = options;
  const app = await buildAuthApp({ store, tokenLifetimeMs, ...rest });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const sqliteHandle = sqliteHandleGetter(sqlite);
  return {
    url,
    app,
    get db() {
      return sqliteHandle();
    },
    store,
    async register(username, displayName = username) {
      const response = await fetch(`${url}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password: 'correct horse battery', displayName }),
      });
      if (response.status !== 201) throw new Error(`register ${username}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<{ token: string; account: { id: string; username: string; displayName: string } }>;
    },
    async close() {
      await app.close();
      await store.db.destroy();
      if (databaseUrl) await dropTestDatabase(databaseUrl);
    },
  };
}
