import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { RESOLVED_RECORD_FORMAT } from '../../src/catalog/record-format.js';
import { storeMeta } from '../../src/db/store-meta.js';
import { bullConnection } from '../../src/redis/managed-redis.js';
import { SNAPSHOT_QUEUE } from '../../src/snapshot/snapshot-queue.js';
import { BEACON_V1, copyExampleCatalog, CRABBER, LOW_TIDE, REGATTA } from '../helpers/example-catalog.js';
import { FILES_UNDER_DATA_DIR, startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

let backend: TestBackend;
let catalog: string;
let baseUrl: string;

beforeAll(async () => {
  // Four versions of the examples, one of each kind this file exercises.
  catalog = copyExampleCatalog([LOW_TIDE, BEACON_V1, CRABBER, REGATTA]);
  backend = await startTestBackend({ CATALOG_DIR: catalog, ...FILES_UNDER_DATA_DIR });
  baseUrl = await backend.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => backend.close());

type Line = { slug: string; version: string; ingested: boolean; renderedReferences: number; error?: string };
const ingest = async (body?: object) => {
  const response = await backend.app.inject({ method: 'POST', url: '/ingest', ...(body ? { payload: body } : {}) });
  return { status: response.statusCode, json: response.json() };
};
const bySlug = (lines: Line[]) => Object.fromEntries(lines.map((line) => [line.slug, line]));

describe('POST /ingest', () => {
  it('ingests the catalog, renders its mockups and turns /readyz ready', async () => {
    expect((await backend.app.inject('/readyz')).statusCode).toBe(503);
    const { status, json } = await ingest();
    expect(status).toBe(200);
    expect(json).toMatchObject({ total: 4, ingested: 4, skipped: 0, failed: 0, pruned: [] });
    expect(bySlug(json.testCaseVersions)).toMatchObject({
      'skiff-race': { version: 'v1.1.0', ingested: true, renderedReferences: 5 },
      crabber: { version: 'v2.0.0', ingested: true, renderedReferences: 1 },
      beacon: { version: 'v1.0.0', ingested: true, renderedReferences: 2 },
      'low-tide': { ingested: true },
    });
    expect((await backend.app.inject('/readyz')).json()).toEqual({ status: 'ready', storeReady: true });
  });

  it('serves rendered references as real images of the mockup', async () => {
    const response = await fetch(`${baseUrl}/test-cases/skiff-race/versions/v1.1.0/references/base/title.png`);
    expect(response.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await response.arrayBuffer());
    const image = sharp(png);
    expect(await image.metadata()).toMatchObject({ format: 'png', width: 1280, height: 720 });
    const { channels } = await image.stats();
    // A blank page has no variation in any channel.
    expect(Math.max(...channels.map((channel) => channel.stdev))).toBeGreaterThan(5);
  });

  it('treats unchanged versions as no-ops', async () => {
    const { json } = await ingest();
    expect(json).toMatchObject({ total: 4, ingested: 0, skipped: 4 });
  });

  it('streams NDJSON progress with the identical scan when Accept asks for it', async () => {
    appendFileSync(join(catalog, CRABBER, 'changelog.md'), '\nA line added by the test.\n');
    const response = await fetch(`${baseUrl}/ingest`, { method: 'POST', headers: { accept: 'application/x-ndjson' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({ event: 'start', total: 4 });
    expect(lines.slice(1, 5).map((line) => [line.event, line.index, line.slug, line.ingested])).toEqual([
      ['version', 0, 'low-tide', false],
      ['version', 1, 'beacon', false],
      ['version', 2, 'crabber', true],
      ['version', 3, 'skiff-race', false],
    ]);
    expect(lines[5]).toEqual({ event: 'done', total: 4, ingested: 1, skipped: 3, failed: 0, pruned: [] });
    expect(lines).toHaveLength(6);
  });

  it('keeps the catalogVersion marker: a new token re-ingests all, the same token reuses the store', async () => {
    const meta = storeMeta(backend.store);
    expect((await ingest({ catalogVersion: 'c1' })).json).toMatchObject({ ingested: 4 });
    expect(await meta.get('catalog_version')).toBe('c1');
    const reused = (await ingest({ catalogVersion: 'c1' })).json;
    expect(reused).toMatchObject({ total: 4, ingested: 0, skipped: 4 });
    // A partial scan ignores the token and leaves the marker alone.
    expect((await ingest({ catalogVersion: 'c2', testCases: ['crabber'] })).json).toMatchObject({ total: 1 });
    expect(await meta.get('catalog_version')).toBe('c1');
  });

  it('selects by slug, folder name or id@version, and answers 404 for a selector naming nothing', async () => {
    // `regatta` is the folder; the manifest declares the slug `skiff-race`.
    expect((await ingest({ testCases: ['regatta'], force: true })).json.testCaseVersions).toEqual([
      { slug: 'skiff-race', version: 'v1.1.0', ingested: true, renderedReferences: 5 },
    ]);
    expect((await ingest({ testCases: ['skiff-race@v1.1.0', 'crabber'] })).json.total).toBe(2);
    const unknown = await ingest({ testCases: ['skiff-race@v9.9.9', 'ghost'] });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toBe('testCases names nothing in the catalog: skiff-race@v9.9.9, ghost.');
    expect((await ingest({ testCases: [] })).status).toBe(400);
  });

  it('keeps the previous copy of a version that fails, reports the file, and goes on', async () => {
    const manifest = join(catalog, REGATTA, 'test-case.toml');
    const original = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, `${original}\n[[reference]\nbroken =\n`);
    try {
      const { status, json } = await ingest({ force: true });
      expect(status).toBe(200);
      // The manifest no longer parses, so the line names the folder's version, not a slug.
      const broken = json.testCaseVersions.find((line: Line) => line.version === 'v1.1.0');
      expect(broken.ingested).toBe(false);
      expect(broken.error).toContain(`${REGATTA}/test-case.toml`);
      expect(json).toMatchObject({ failed: 1, ingested: 3 });
      const stillServed = await backend.app.inject('/test-cases/skiff-race/versions/v1.1.0');
      expect(stillServed.statusCode).toBe(200);
    } finally {
      writeFileSync(manifest, original);
    }
  });

  it("lists the URLs a version's mockups were refused", async () => {
    const mockup = join(catalog, REGATTA, 'reference', 'gameplay.html');
    const original = readFileSync(mockup, 'utf8');
    writeFileSync(
      mockup,
      original.replace('</head>', '<link rel="stylesheet" href="https://fonts.example.com/display.css"><link rel="stylesheet" href="../../secrets.css"></head>'),
    );
    try {
      const [regatta] = (await ingest({ testCases: ['regatta'] })).json.testCaseVersions;
      expect(regatta).toMatchObject({ ingested: true, renderedReferences: 5 });
      // Outside the version folder: reported relative to the mockup, as written.
      expect(regatta.blockedUrls).toEqual([
        { view: 'gameplay', file: 'reference/gameplay.html', url: '../../secrets.css' },
        { view: 'gameplay', file: 'reference/gameplay.html', url: 'https://fonts.example.com/display.css' },
      ]);
    } finally {
      writeFileSync(mockup, original);
    }
    // Clean again: the line carries no blockedUrls at all.
    expect((await ingest({ testCases: ['regatta'] })).json.testCaseVersions[0]).toEqual({
      slug: 'skiff-race', version: 'v1.1.0', ingested: true, renderedReferences: 5,
    });
  });

  it('prunes versions a whole scan no longer finds, except those a stored run references', async () => {
    const now = new Date().toISOString();
    await backend.store.db.insertInto('runs').values({
      id: 'jam-run', record: '{}', record_format: 1, state: 'completed', test_case_slug: 'low-tide', test_case_version: 'v1.0.0',
      variant: 'base', harness: 'claude', model_id: 'acme/m', created_at: now, updated_at: now,
    }).execute();
    const saved = join(catalog, '..', 'beacon-saved');
    const savedJams = join(catalog, '..', 'game-jams-saved');
    renameSync(join(catalog, BEACON_V1), saved);
    renameSync(join(catalog, 'game-jams'), savedJams);
    try {
      const { json } = await ingest();
      expect(json.pruned).toEqual([{ slug: 'beacon', version: 'v1.0.0' }]);
      expect((await backend.app.inject('/test-cases/beacon/versions')).statusCode).toBe(404);
      expect((await backend.app.inject('/test-cases/low-tide/versions/v1.0.0')).statusCode).toBe(200);
    } finally {
      renameSync(saved, join(catalog, BEACON_V1));
      renameSync(savedJams, join(catalog, 'game-jams'));
    }
  });

  it('promotes a scan over a store of another record format to a forced whole-catalog scan', async () => {
    await storeMeta(backend.store).set('record_format', '999');
    const { json } = await ingest({ testCases: ['crabber'] });
    expect(json.total).toBe(4);
    expect(json.ingested).toBe(4);
    expect(await storeMeta(backend.store).get('record_format')).toBe(String(RESOLVED_RECORD_FORMAT));
  });

  it('queues a snapshot refresh after a scan that re-ingested something, which the snapshot worker writes', async () => {
    const queue = new Queue(SNAPSHOT_QUEUE, { connection: bullConnection(backend.config.redisUrl), prefix: backend.config.redisPrefix });
    const index = join(backend.config.snapshotDir, 'runs.json');
    try {
      await ingest();
      // A refresh an earlier scan queued may still be writing: let it finish before the
      // folder goes, or its write looks like one this quiet scan queued.
      await until(async () => {
        const { waiting = 0, active = 0, delayed = 0 } = await queue.getJobCounts('waiting', 'active', 'delayed');
        return waiting + active + delayed === 0;
      }, 10_000, 'earlier snapshot refreshes to finish');
      rmSync(backend.config.snapshotDir, { recursive: true, force: true });
      await ingest();
      expect((await queue.getJobCounts('waiting', 'active')).waiting).toBe(0);
      expect(existsSync(index)).toBe(false);
      await ingest({ force: true, testCases: ['crabber'] });
      await ingest({ force: true, testCases: ['crabber'] });
      for (let i = 0; i < 200 && !existsSync(index); i++) await new Promise((done) => setTimeout(done, 25));
      expect(JSON.parse(readFileSync(index, 'utf8'))).toEqual({ schemaVersion: 1, runs: [] });
    } finally {
      await queue.close();
    }
  });
});
