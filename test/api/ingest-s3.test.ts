import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBlobStore } from '../../src/blob/open-blob-store.js';
import { loadConfig } from '../../src/config.js';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

// Ingested versions on the `s3` blob driver: written once to the bucket before the index
// points at them, and read through a local copy that a machine without one fetches.
const REFERENCE = '/test-cases/skiff-race/versions/v1.1.0/references/base/title.png';
const ARTIFACT = '/test-cases/skiff-race/versions/v1.1.0/artifacts/prompt.hbs';

let s3: TestS3Server;
let backend: TestBackend;

beforeAll(async () => {
  s3 = await startTestS3();
  backend = await startTestBackend({ ...s3.env('ingest'), CATALOG_DIR: EXAMPLE_CATALOG });
});
afterAll(async () => {
  await backend?.close();
  await s3?.close();
});

const ingest = async (payload: object) => (await backend.app.inject({ method: 'POST', url: '/ingest', payload })).json();
const get = (url: string) => backend.app.inject(url);

describe('ingest with the s3 blob driver', () => {
  it('writes each committed version, its rendered PNGs included, to the bucket', async () => {
    expect(await ingest({ testCases: ['skiff-race'] })).toMatchObject({ failed: 0 });
    const storeDir = (await backend.app.catalog.index.get('skiff-race', 'v1.1.0'))!.storeDir;
    const bucket = openBlobStore(loadConfig({ DATA_DIR: backend.dataDir, ...s3.env('ingest') }));
    const keys = await bucket.list('definitions/skiff-race/v1.1.0');
    bucket.close();
    const prefix = `definitions/skiff-race/v1.1.0/${storeDir.split('/').at(-1)}`;
    expect(keys).toContain(`${prefix}/resolved.json`);
    expect(keys).toContain(`${prefix}/references/base/title.png`);
    expect(keys).toContain(`${prefix}/source/prompt.hbs`);
    expect((await get(REFERENCE)).statusCode).toBe(200);
  });

  it('serves a version to a machine whose DATA_DIR lacks it, fetching it from the bucket, with the usual confinement', async () => {
    const served = (await get(REFERENCE)).rawPayload;
    rmSync(join(backend.dataDir, 'definitions'), { recursive: true, force: true });
    const again = await get(REFERENCE);
    expect(again.statusCode).toBe(200);
    expect(again.rawPayload.equals(served)).toBe(true);
    expect((await get(ARTIFACT)).statusCode).toBe(200);
    for (const url of ['/test-cases/skiff-race/versions/v1.1.0/references/_common/..%2f..%2fresolved.json', '/test-cases/skiff-race/versions/v1.1.0/artifacts/..%2fresolved.json']) {
      expect((await get(url)).statusCode, url).toBe(404);
    }
  });

  it('changes no row when the bucket cannot take a version, and ingests again once it is back', async () => {
    const before = await backend.app.catalog.index.get('skiff-race', 'v1.1.0');
    await s3.stop();
    try {
      expect(await ingest({ testCases: ['skiff-race'], force: true })).toMatchObject({ ingested: 0, failed: 1 });
      expect((await backend.app.catalog.index.get('skiff-race', 'v1.1.0'))).toEqual(before);
    } finally {
      await s3.start();
    }
    expect(await ingest({ testCases: ['skiff-race'], force: true })).toMatchObject({ ingested: 1, failed: 0 });
    expect((await backend.app.catalog.index.get('skiff-race', 'v1.1.0'))!.storeDir).not.toBe(before!.storeDir);
    expect((await get(REFERENCE)).statusCode).toBe(200);
  }, 60_000);
});
