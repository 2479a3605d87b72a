import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startManagedPostgres } from '../src/db/managed-postgres.js';
import { migratePostgres } from '../src/db/migrate-postgres.js';
import { startManagedRedis } from '../src/redis/managed-redis.js';
import { startTestS3 } from './helpers/s3-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** The run's PostgreSQL cluster: its maintenance database's URL, its socket folder, and the migrated template database. */
    postgres: { url: string; dir: string; template: string };
    /** The PostgreSQL half's local S3 server (s3rver), whose bucket test backends keep their files in; null in the SQLite half. */
    s3Endpoint: string | null;
  }
}

/**
 * One real redis-server and one throwaway PostgreSQL cluster for the whole run, and in the
 * PostgreSQL half one local S3 server: that half runs as a deployment of several machines
 * would, rows in PostgreSQL and files in a bucket. Each test file isolates itself with its
 * own Redis key prefix, its own databases and its own bucket prefix; a database for a test
 * backend is copied from the template database, migrated here once.
 */
const TEMPLATE_DATABASE = 'evb_template';

export default async function setup(project: TestProject) {
  const redisDir = mkdtempSync(join(tmpdir(), 'evb-redis-'));
  const pgDir = mkdtempSync(join(tmpdir(), 'evb-pg-'));
  const redis = await startManagedRedis({ dir: redisDir, persistent: false });
  const postgres = await startManagedPostgres({ dir: pgDir });
  const template = new pg.Pool({ connectionString: await postgres.createDatabase(TEMPLATE_DATABASE), max: 1 });
  try {
    await migratePostgres(template);
  } finally {
    // A template database may not be copied while anyone is connected to it.
    await template.end();
  }
  const s3 = process.env.TEST_STORE === 'postgres' ? await startTestS3() : null;
  project.provide('redisUrl', redis.url);
  project.provide('s3Endpoint', s3?.endpoint ?? null);
  project.provide('postgres', { url: postgres.url, dir: pgDir, template: TEMPLATE_DATABASE });
  return async () => {
    await Promise.all([redis.stop(), postgres.stop(), s3?.close()]);
    rmSync(redisDir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  };
}
