import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildApp, type AppOptions } from '../../src/api/app.js';
import { loadConfig, type Env, type ServiceConfig } from '../../src/config.js';
import type { BackendStore } from '../../src/db/dialect.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import { startTestAuth, type TestAuth } from './test-auth.js';

export interface TestBackend {
  app: FastifyInstance;
  db: Database;
  /** The app's store layer (`app.store`). */
  store: BackendStore;
  auth: TestAuth;
  config: ServiceConfig;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * The real app on a fresh SQLite file, the shared real Redis under a fresh key prefix,
 * and its own real auth service. `env` overrides configuration as the environment would.
 */
/** Curated catalog entries with a hand list price, so launches naming them pass the real model rule. */
export const HAND_LIST_PRICE = { listPriceInputPerMtok: 3, listPriceCachedInputPerMtok: 0.3, listPriceOutputPerMtok: 15, listPriceAsOf: '2026-11-01' };

export async function startTestBackend(env: Env = {}, options: Pick<AppOptions, 'jobs' | 'onRoute'> & { pricedModels?: string[] } = {}): Promise<TestBackend> {
  const dataDir = mkdtempSync(join(tmpdir(), 'evb-data-'));
  const auth = await startTestAuth({ relayToken: env.AUTH_RELAY_TOKEN ?? null });
  const config = {
    ...loadConfig({
      DATA_DIR: dataDir,
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: `t${randomUUID().slice(0, 8)}`,
      AUTH_CACHE_SECONDS: '0',
      LOG_LEVEL: 'silent',
      ...env,
    }),
    authUrl: env.AUTH_URL ?? auth.url,
    redisUrl: env.REDIS_URL ?? inject('redisUrl'),
  };
  const db = openDatabase(join(dataDir, 'backend.sqlite'));
  const app = await buildApp({ config, db, ...(options.jobs ? { jobs: options.jobs } : {}), ...(options.onRoute ? { onRoute: options.onRoute } : {}) });
  for (const slug of options.pricedModels ?? []) app.models.create({ slug, ...HAND_LIST_PRICE });
  return {
    app,
    db,
    store: app.store,
    auth,
    config,
    dataDir,
    async close() {
      await app.close();
      db.close();
      await auth.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
