import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildApp, type AppOptions } from '../../src/api/app.js';
import { loadConfig, type Env, type ServiceConfig } from '../../src/config.js';
import type { BackendStore } from '../../src/db/dialect.js';
import type { Database } from '../../src/db/open-database.js';
import { openStore } from '../../src/db/open-store.js';
import { EXAMPLE_CATALOG } from './example-catalog.js';
import { sqliteHandleGetter } from './sqlite-handle.js';
import { dropTestDatabase, testDatabase } from './postgres.js';
import { s3Environment } from './s3-server.js';
import { startTestAuth, type TestAuth } from './test-auth.js';

export interface TestBackend {
  app: FastifyInstance;
  /** The raw SQLite handle; in the PostgreSQL half, reading it fails naming the reader. */
  db: Database;
  /** The app's store layer (`app.store`). */
  store: BackendStore;
  auth: TestAuth;
  config: ServiceConfig;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * The engine test backends run on: `TEST_STORE=postgres` (the PostgreSQL half of `npm test`,
 * set by scripts/bootstrap.mjs) or SQLite.
 */
export const TEST_ENGINE = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * For tests about the `fs` blob driver's files under DATA_DIR (its folder layout, links
 * planted in it, its snapshot swap): without it the PostgreSQL half's backends keep their
 * files in the run's bucket. Their `s3` counterparts are the `*-s3` and bucket tests.
 */
export const FILES_UNDER_DATA_DIR = { BLOB_STORE_URL: '' };

/** Curated catalog entries with a hand list price, so launches naming them pass the real model rule. */
export const HAND_LIST_PRICE = { listPriceInputPerMtok: 3, listPriceCachedInputPerMtok: 0.3, listPriceOutputPerMtok: 15, listPriceAsOf: '2026-11-01' };

/**
 * The real app on a fresh store (a SQLite file, or in the PostgreSQL half a database copied
 * from the run's migrated template), the shared real Redis under a fresh key prefix, and its
 * own real auth service. `env` overrides configuration as the environment would.
 */
export async function startTestBackend(env: Env = {}, options: Pick<AppOptions, 'jobs' | 'onRoute'> & { pricedModels?: string[] } = {}): Promise<TestBackend> {
  const dataDir = mkdtempSync(join(tmpdir(), 'evb-data-'));
  const auth = await startTestAuth({ relayToken: env.AUTH_RELAY_TOKEN ?? null });
  const databaseUrl = TEST_ENGINE === 'postgres' ? await testDatabase({ migrated: true }) : undefined;
  const prefix = `t${randomUUID().slice(0, 8)}`;
  const s3Endpoint = inject('s3Endpoint');
  const config = {
    ...loadConfig({
      DATA_DIR: dataDir,
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: prefix,
      AUTH_CACHE_SECONDS: '0',
      LOG_LEVEL: 'silent',
      // Set on purpose, as on a deployment's ingesting machine: on a shared store (the PostgreSQL
      // half) ingest runs only there. A test about the default passes CATALOG_DIR: ''.
      CATALOG_DIR: EXAMPLE_CATALOG,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      // The PostgreSQL half keeps files in its bucket, each backend under a prefix of its own.
      ...(s3Endpoint ? s3Environment(s3Endpoint, `backends/${prefix}`) : {}),
      ...env,
    }),
    authUrl: env.AUTH_URL ?? auth.url,
    redisUrl: env.REDIS_URL ?? inject('redisUrl'),
  };
  const opened = await openStore(config);
  const release = async () => {
    await opened.close();
    if (databaseUrl) await dropTestDatabase(databaseUrl);
    await auth.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  let app: FastifyInstance;
  try {
    app = await buildApp({ config, db: opened.sqlite, store: opened.store, ...(options.jobs ? { jobs: options.jobs } : {}), ...(options.onRoute ? { onRoute: options.onRoute } : {}) });
  } catch (error) {
    await release();
    throw error;
  }
  try {
    // Awaited: a launch must find its model, and a failed write must not go unhandled.
    for (const slug of options.pricedModels ?? []) await app.models.create({ slug, ...HAND_LIST_PRICE });
  } catch (error) {
    await app.close();
    await release();
    throw error;
  }
  const backend = {
    app,
    store: app.store,
    auth,
    config,
    dataDir,
    async close() {
      await app.close();
      await release();
    },
  };
  return Object.defineProperty(backend, 'db', { get: sqliteHandleGetter(opened.sqlite), enumerable: true }) as TestBackend;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
