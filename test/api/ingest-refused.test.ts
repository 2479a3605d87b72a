import { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig, type Env } from '../../src/config.js';
import { openStore, type OpenedStore } from '../../src/db/open-store.js';
import { BACKGROUND_QUEUES } from '../../src/queue/queue-keys.js';
import { bullConnection } from '../../src/redis/managed-redis.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { minimalCase, writeVersion } from '../catalog/catalog-test-helpers.js';
import { s3Environment } from '../helpers/s3-server.js';
import { startTestBackend, TEST_ENGINE, type TestBackend } from '../helpers/test-backend.js';

// One deployment's store; each app below is another machine on it, with a queue prefix of its
// own so that its ingest request is run by its own worker, with its own CATALOG_DIR.
let first: TestBackend;
let real: string;
const machines: Array<{ app: FastifyInstance; opened: OpenedStore }> = [];
const checkouts: string[] = [];

/** A checkout outside any git work tree (known by its path) holding v1.0.0 of each of `slugs`; kept for the whole file. */
async function checkout(slugs: string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'evb-checkout-'));
  checkouts.push(root);
  for (const slug of slugs) await writeVersion(root, `test-cases/${slug}/v1.0.0`, minimalCase(slug));
  return root;
}

/** Another machine on the same store and files, configured by `env` as its environment would. */
async function machine(env: Env) {
  const s3Endpoint = inject('s3Endpoint');
  const config = {
    ...loadConfig({
      DATA_DIR: first.dataDir, REDIS_URL: first.config.redisUrl!, REDIS_PREFIX: `${first.config.redisPrefix}m${machines.length}`, LOG_LEVEL: 'silent',
      ...(first.config.databaseUrl ? { DATABASE_URL: first.config.databaseUrl } : {}),
      ...(s3Endpoint ? s3Environment(s3Endpoint, `backends/${first.config.redisPrefix}`) : {}),
      ...env,
    }),
    authUrl: first.config.authUrl,
    redisUrl: first.config.redisUrl,
  };
  const opened = await openStore(config);
  const app = await buildApp({ config, db: opened.sqlite, store: opened.store });
  machines.push({ app, opened });
  return app;
}

const ingest = async (app: FastifyInstance, body: object = {}, ndjson = false) => {
  const response = await app.inject({ method: 'POST', url: '/ingest', payload: body, headers: ndjson ? { accept: 'application/x-ndjson' } : {} });
  return { status: response.statusCode, json: response.json() };
};
const stored = async () => (await first.app.inject('/test-cases')).json().testCases.map((entry: { slug: string }) => entry.slug).sort();

beforeAll(async () => {
  real = await checkout(['alpha', 'beta', 'gamma']);
  first = await startTestBackend({ CATALOG_DIR: real });
  expect(await ingest(first.app)).toMatchObject({ status: 200, json: { ingested: 3, pruned: [] } });
});
afterAll(async () => {
  for (const { app, opened } of machines) {
    await app.close();
    await opened.close();
  }
  await first?.close();
  await Promise.all(checkouts.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('a machine left on defaults beside a deployment', () => {
  it('runs no ingest worker on a shared store unless CATALOG_DIR is set (the embedded default keeps its own)', async () => {
    const app = await machine({ CATALOG_DIR: '' });
    const queue = new Queue(BACKGROUND_QUEUES.ingest, { connection: bullConnection(first.config.redisUrl!), prefix: app.config.redisPrefix });
    try {
      const workers = await queue.getWorkers();
      // The PostgreSQL half is a several-machine deployment (PostgreSQL and a bucket); the SQLite half an embedded one.
      expect(workers).toHaveLength(TEST_ENGINE === 'postgres' ? 0 : 1);
    } finally {
      await queue.close();
    }
  });

  it('has a whole scan of another checkout refused with 409 ingest_refused, JSON or NDJSON, and loses nothing', async () => {
    const examples = await checkout(['carom', 'alpha']);
    const other = await machine({ CATALOG_DIR: examples });
    for (const ndjson of [false, true]) {
      const refused = await ingest(other, { catalogVersion: 'x' }, ndjson);
      expect(refused.status).toBe(409);
      expect(refused.json.error.code).toBe('ingest_refused');
      expect(refused.json.error.message).toContain(real);
      expect(refused.json.error.message).toContain(examples);
      expect(refused.json.error.message).toContain('replaceCatalog');
    }
    expect(await stored()).toEqual(['alpha', 'beta', 'gamma']);
    // The store's own machine still scans as before.
    expect(await ingest(first.app)).toMatchObject({ status: 200, json: { ingested: 0, skipped: 3, pruned: [] } });

    const replaced = await ingest(other, { replaceCatalog: true });
    expect(replaced.status).toBe(200);
    expect(replaced.json.pruned.map((id: { slug: string }) => id.slug).sort()).toEqual(['beta', 'gamma']);
    expect(await stored()).toEqual(['alpha', 'carom']);
    expect((await ingest(first.app)).json.error.code).toBe('ingest_refused');
  });
});
