import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { folderSnapshot } from '../../src/snapshot/folder-snapshot.js';
import { snapshotLock } from '../../src/snapshot/snapshot-lock.js';
import { snapshotWriter, type SnapshotWriter } from '../../src/snapshot/write-snapshot.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { FILES_UNDER_DATA_DIR, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let redis: Redis;
/** A second writer over the same folder and lock, as `npm run worker` runs beside the API; it keeps no replaced version past the previous one. */
let other: SnapshotWriter;

beforeAll(async () => {
  backend = await startTestBackend({ SNAPSHOT_URL: 'http://127.0.0.1/snapshot/', RUN_WORKERS: 'false', ...FILES_UNDER_DATA_DIR });
  for (const id of ['snap-a', 'snap-b']) {
    await seedRun(backend, runRecord({ id }));
    await backend.app.runs.rows.markPublished({ id, publishedAt: new Date().toISOString(), sourceRepo: null, playableBuild: null });
  }
  redis = new Redis(redisOptionsFromUrl(backend.config.redisUrl));
  const { rows, grades } = backend.app.runs;
  other = snapshotWriter({
    store: backend.store, rows, grades, blobs: backend.app.blobs, output: folderSnapshot(backend.config.snapshotDir, backend.dataDir), deployHook: null, onWarning: () => {},
    exclusive: snapshotLock(redis, backend.config.redisPrefix),
    replacedGraceMs: 0,
  });
});
afterAll(async () => {
  redis.disconnect();
  await backend.close();
});

/** Watches a path from another thread (so it sees between this thread's awaits) until stopped; answers how often it was missing. */
function watchPath(path: string) {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { existsSync } = require('node:fs'); const { workerData, parentPort } = require('node:worker_threads');
     let missing = 0, looks = 0;
     parentPort.postMessage('ready');
     while (Atomics.load(workerData.stop, 0) === 0) { looks++; if (!existsSync(workerData.path)) missing++; }
     parentPort.postMessage({ missing, looks });`,
    { eval: true, workerData: { path, stop } },
  );
  const ready = new Promise((done) => worker.once('message', done));
  const result = new Promise<{ missing: number; looks: number }>((done) => worker.on('message', (message) => message !== 'ready' && done(message)));
  return { ready, stop: () => (Atomics.store(stop, 0, 1), result) };
}

describe('snapshot publishing', () => {
  it('never leaves a moment without a snapshot while refreshes replace it', async () => {
    const index = `${backend.config.snapshotDir}/runs.json`;
    await backend.app.runs.snapshot.refresh();
    const watcher = watchPath(index);
    await watcher.ready;
    for (let i = 0; i < 30; i++) await backend.app.runs.snapshot.refresh();
    const seen = await watcher.stop();
    expect(seen.looks).toBeGreaterThan(0);
    expect(seen.missing).toBe(0);
    expect(lstatSync(backend.config.snapshotDir).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(index, 'utf8')).runs.map((run: { id: string }) => run.id).sort()).toEqual(['snap-a', 'snap-b']);
    // Replaced moments ago, the versions stay for reads that resolved the link to them.
    expect(readdirSync(`${backend.config.snapshotDir}.versions`).length).toBeGreaterThan(2);
  });

  it('lets one writer at a time across processes publish, and keeps only the current and previous versions past the grace', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? backend.app.runs.snapshot : other).refresh()));
    expect(results.every((result) => result.refreshed && result.runs === 2)).toBe(true);
    await other.refresh();
    const versions = readdirSync(`${backend.config.snapshotDir}.versions`);
    expect(versions.length).toBeLessThanOrEqual(2);
    expect(existsSync(`${backend.config.snapshotDir}/runs/snap-a.json`)).toBe(true);
  });

  it('serves the file the current version holds', async () => {
    await other.refresh();
    const served = await backend.app.inject('/snapshot/runs/snap-b.json');
    expect(served.statusCode).toBe(200);
    expect(served.json()).toMatchObject({ id: 'snap-b', published: true });
    expect((await backend.app.inject('/snapshot/runs/nope.json')).statusCode).toBe(404);
  });

  it('replaces a snapshot folder written before versions existed', async () => {
    const dir = join(mkdtempSync(join(backend.dataDir, 'legacy-')), 'snapshot');
    mkdirSync(dir);
    writeFileSync(join(dir, 'runs.json'), '{"schemaVersion":1,"runs":[]}');
    const { rows, grades } = backend.app.runs;
    const writer = snapshotWriter({ store: backend.store, rows, grades, blobs: backend.app.blobs, output: folderSnapshot(dir, backend.dataDir), deployHook: null, onWarning: () => {}, exclusive: (work) => work() });
    expect((await writer.refresh()).runs).toBe(2);
    expect(lstatSync(dir).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'runs.json'), 'utf8')).runs).toHaveLength(2);
    await writer.refresh();
    expect(readdirSync(`${dir}.versions`)).toHaveLength(2);
  });

  it('writes runs published past one page, newest first, each once, with a detail file each', async () => {
    // Two pages and a part, some sharing a publish time, so the page boundary falls inside a tie.
    const ids = Array.from({ length: 600 }, (_, i) => `paged-${String(i).padStart(3, '0')}`);
    const publish = async (id: string, i: number) => {
      await seedRun(backend, runRecord({ id }));
      await backend.app.runs.rows.markPublished({ id, publishedAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 7) * 1000).toISOString(), sourceRepo: null, playableBuild: null });
    };
    // Twenty at a time: one by one, 600 stores and grades took most of a minute on a busy machine.
    for (let at = 0; at < ids.length; at += 20) await Promise.all(ids.slice(at, at + 20).map((id, j) => publish(id, at + j)));
    const dir = join(mkdtempSync(join(backend.dataDir, 'paged-')), 'snapshot');
    const { rows, grades } = backend.app.runs;
    const writer = snapshotWriter({ store: backend.store, rows, grades, blobs: backend.app.blobs, output: folderSnapshot(dir, backend.dataDir), deployHook: null, onWarning: () => {}, exclusive: (work) => work() });
    expect((await writer.refresh()).runs).toBe(602);
    const listed = JSON.parse(readFileSync(join(dir, 'runs.json'), 'utf8')).runs.map((run: { id: string }) => run.id);
    // snap-a and snap-b were published now, after every paged run; ties go by id, descending.
    expect(listed.slice(2)).toEqual([...ids].sort((a, b) => Math.floor(ids.indexOf(b) / 7) - Math.floor(ids.indexOf(a) / 7) || b.localeCompare(a)));
    expect(new Set(listed).size).toBe(602);
    expect(readdirSync(join(dir, 'runs'))).toHaveLength(602);
  }, 60_000);
});
