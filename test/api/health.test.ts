import { renameSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_VERSION } from '../../src/contract-version.js';
import { RESOLVED_RECORD_FORMAT } from '../../src/catalog/record-format.js';
import { storeMeta } from '../../src/db/store-meta.js';
import { startTestBackend, TEST_ENGINE, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startTestBackend({ ARTIFACTS_URL: 'http://artifacts.internal:9000/', ARENA_URL: 'https://arena.example' });
});
afterAll(() => backend.close());

const insertVersion = (slug: string, format: number) =>
  backend.store.db.insertInto('test_case_versions').values({
    slug, version: 'v1.0.0', record_format: format, store_dir: '/nowhere', fingerprint: 'f', content_hash: 'h', ingested_at: new Date().toISOString(),
  }).execute();

describe('health and configuration', () => {
  it('GET /healthz answers 200 with the contract version while the store is empty', async () => {
    const response = await backend.app.inject('/healthz');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', version: CONTRACT_VERSION, storeReady: false });
  });

  it('GET /config answers each URL or null', async () => {
    const response = await backend.app.inject('/config');
    expect(response.json()).toEqual({
      artifactsUrl: 'http://artifacts.internal:9000',
      arenaUrl: 'https://arena.example',
      dashboardUrl: null,
      snapshotUrl: null,
    });
  });

  it('GET /readyz is 503 empty, 503 format-mismatch, then 200 and latches', async () => {
    let response = await backend.app.inject('/readyz');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ status: 'empty', storeReady: false });

    const meta = storeMeta(backend.store);
    await meta.set('record_format', String(RESOLVED_RECORD_FORMAT + 1));
    await insertVersion('old', RESOLVED_RECORD_FORMAT + 1);
    response = await backend.app.inject('/readyz');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ status: 'format-mismatch', storeReady: false });

    // What an ingest scan leaves behind: the store restamped and readable versions.
    await meta.set('record_format', String(RESOLVED_RECORD_FORMAT));
    await insertVersion('fresh', RESOLVED_RECORD_FORMAT);
    response = await backend.app.inject('/readyz');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', storeReady: true });

    // A re-ingest that empties the table for a moment does not withdraw readiness.
    await backend.store.db.deleteFrom('test_case_versions').execute();
    expect((await backend.app.inject('/readyz')).statusCode).toBe(200);
    expect((await backend.app.inject('/healthz')).json().storeReady).toBe(true);
  });
});

// SQLite-only: the statistics thread loses its store by having the database file renamed away
// under it, which has no PostgreSQL counterpart (there the thread would lose its connection).
describe.skipIf(TEST_ENGINE === 'postgres')('a statistics thread that cannot open the store', () => {
  it('answers /status, /metrics and /stats/* 503 stats_unavailable, while the API keeps serving', async () => {
    const file = backend.db.name;
    renameSync(file, `${file}.away`);
    try {
      for (const url of ['/status', '/metrics', '/stats/providers']) {
        const response = await backend.app.inject(url);
        expect([url, response.statusCode, response.json().error.code]).toEqual([url, 503, 'stats_unavailable']);
      }
      expect((await backend.app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      renameSync(`${file}.away`, file);
    }
    expect((await backend.app.inject('/stats/providers')).statusCode).toBe(200);
  });
});

describe('error envelope', () => {
  it('answers an unknown route with 404 not_found', async () => {
    const response = await backend.app.inject('/no/such/route');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'not_found', message: 'No route GET /no/such/route.' } });
  });
});

// Last: a /status read starts the statistics thread, which the test of a thread that cannot open the store needs not yet started.
describe('GET /status', () => {
  it('names the catalog version the store was last ingested under', async () => {
    expect((await backend.app.inject('/status')).json().catalog.catalogVersion).toBeNull();
    await storeMeta(backend.store).set('catalog_version', 'c0ffee');
    const status = await backend.app.inject('/status');
    expect(status.statusCode).toBe(200);
    expect(status.json().catalog.catalogVersion).toBe('c0ffee');
  });
});
