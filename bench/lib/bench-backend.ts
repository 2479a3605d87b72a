import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import type { RunJobsOptions } from '../../src/api/plugins/run-jobs.js';
import { loadConfig, type Env } from '../../src/config.js';
import type { BackendStore } from '../../src/db/dialect.js';
import type { Database } from '../../src/db/open-database.js';
import { openStore } from '../../src/db/open-store.js';
import { sqliteHandleGetter } from '../../test/helpers/sqlite-handle.js';

export interface BenchBackend {
  app: FastifyInstance;
  /** The raw SQLite handle; on PostgreSQL, reading it fails naming the reader. */
  db: Database;
  store: BackendStore;
  /** The SQLite file, or null on PostgreSQL. */
  sqliteFile: string | null;
  url: string;
  close(): Promise<void>;
}

/**
 * The real app on a throwaway data dir, listening on loopback; the auth service is not
 * started (benchmarks use open routes or pass tokens they mint elsewhere). Its store is the
 * data dir's SQLite file, or the PostgreSQL database `env.DATABASE_URL` names.
 */
export async function startBenchBackend(redisUrl: string, env: Env = {}, jobs?: RunJobsOptions): Promise<BenchBackend> {
  const dataDir = mkdtempSync(join(tmpdir(), 'evb-bench-'));
  const config = {
    // No network: the routing provider's address refuses at once, as the auth service's does.
    ...loadConfig({ DATA_DIR: dataDir, REDIS_URL: redisUrl, REDIS_PREFIX: `bench${randomUUID().slice(0, 8)}`, LOG_LEVEL: 'silent', ROUTER_BASE_URL: 'http://127.0.0.1:9', ...env }),
    authUrl: env.AUTH_URL ?? 'http://127.0.0.1:9',
    redisUrl,
  };
  const opened = await openStore(config);
  let app: FastifyInstance;
  let url: string;
  try {
    app = await buildApp({ config, db: opened.sqlite, store: opened.store, ...(jobs ? { jobs } : {}) });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    await opened.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const backend = {
    app,
    store: opened.store,
    sqliteFile: opened.sqlite ? join(dataDir, 'backend.sqlite') : null,
    url,
    async close() {
      await app.close();
      await opened.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return Object.defineProperty(backend, 'db', { get: sqliteHandleGetter(opened.sqlite), enumerable: true }) as BenchBackend;
}
