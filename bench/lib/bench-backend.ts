import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import type { RunJobsOptions } from '../../src/api/plugins/run-jobs.js';
import { loadConfig, type Env } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';

export interface BenchBackend {
  app: FastifyInstance;
  db: Database;
  url: string;
  close(): Promise<void>;
}

/** The real app on a throwaway data dir, listening on loopback; the auth service is not started (benchmarks use open routes or pass tokens they mint elsewhere). */
export async function startBenchBackend(redisUrl: string, env: Env = {}, jobs?: RunJobsOptions): Promise<BenchBackend> {
  const dataDir = mkdtempSync(join(tmpdir(), 'evb-bench-'));
  const config = {
    // No network: the routing provider's address refuses at once, as the auth service's does.
    ...loadConfig({ DATA_DIR: dataDir, REDIS_URL: redisUrl, REDIS_PREFIX: `bench${randomUUID().slice(0, 8)}`, LOG_LEVEL: 'silent', ROUTER_BASE_URL: 'http://127.0.0.1:9', ...env }),
    authUrl: env.AUTH_URL ?? 'http://127.0.0.1:9',
    redisUrl,
  };
  const db = openDatabase(join(dataDir, 'backend.sqlite'));
  const app = await buildApp({ config, db, ...(jobs ? { jobs } : {}) });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    db,
    url,
    async close() {
      await app.close();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
