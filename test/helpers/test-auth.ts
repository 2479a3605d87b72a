import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildAuthApp, type AuthAppOptions } from '../../src/auth/app.js';
import { AUTH_MIGRATIONS, type AuthStore } from '../../src/auth/auth-store.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';

export interface TestAuth {
  url: string;
  app: FastifyInstance;
  /** The auth store's SQLite handle, for tests that look into the file. */
  db: Database;
  store: AuthStore;
  /** Registers an account and returns its bearer token. */
  register(username: string, displayName?: string): Promise<{ token: string; account: { id: string; username: string; displayName: string } }>;
  close(): Promise<void>;
}

/** A real auth service on a loopback port with its own SQLite file. */
export async function startTestAuth(options: Pick<AuthAppOptions, 'relayToken' | 'registration'> & { tokenLifetimeMs?: number | null } = {}): Promise<TestAuth> {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'evb-auth-')), 'auth.sqlite'), AUTH_MIGRATIONS);
  const { tokenLifetimeMs = null, ...rest } = options;
  const store: AuthStore = sqliteStore(db);
  const app = await buildAuthApp({ store, tokenLifetimeMs, ...rest });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    app,
    db,
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
      db.close();
    },
  };
}
