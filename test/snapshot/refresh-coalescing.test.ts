import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blob/blob-store.js';
import { openBlobStore } from '../../src/blob/open-blob-store.js';
import { loadConfig } from '../../src/config.js';
import { ScheduleLocks } from '../../src/queue/schedule-lock.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { bucketSnapshot } from '../../src/snapshot/bucket-snapshot.js';
import { snapshotWriter } from '../../src/snapshot/write-snapshot.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';
import { FILES_UNDER_DATA_DIR, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let redis: Redis;
let s3: TestS3Server;
let s3Dir: string;
const versionsDir = () => `${backend.config.snapshotDir}.versions`;

beforeAll(async () => {
  backend = await startTestBackend({ SNAPSHOT_URL: 'http://127.0.0.1/snapshot/', RUN_WORKERS: 'false', ...FILES_UNDER_DATA_DIR });
  for (const id of ['keep-a', 'keep-b', 'keep-c']) {
    await seedRun(backend, runRecord({ id }));
    await backend.app.runs.rows.markPublished({ id, publishedAt: new Date().toISOString(), sourceRepo: null, playableBuild: null });
  }
  await backend.app.blobs.put('run-media/keep-a/showcase/shot.png', Buffer.from('png bytes'));
  redis = new Redis(redisOptionsFromUrl(backend.config.redisUrl));
  s3 = await startTestS3();
  s3Dir = mkdtempSync(join(tmpdir(), 'evb-refresh-s3-'));
});
afterAll(async () => {
  redis?.disconnect();
  await backend?.close();
  await s3?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

describe('POST /snapshot/refresh', () => {
  it('coalesces 20 concurrent calls into at most two refreshes', async () => {
    await backend.app.inject({ method: 'POST', url: '/snapshot/refresh' });
    const before = readdirSync(versionsDir()).length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => backend.app.inject({ method: 'POST', url: '/snapshot/refresh' })));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(20).fill(200));
    expect(answers.every((answer) => answer.json().runs === 3)).toBe(true);
    // Versions replaced under 10 s ago all stay, so each refresh left one behind.
    const made = readdirSync(versionsDir()).length - before;
    expect(made).toBeGreaterThanOrEqual(1);
    expect(made).toBeLessThanOrEqual(2);
  });

  it('carries unchanged run files over from the previous version instead of writing them again', async () => {
    await backend.app.inject({ method: 'POST', url: '/snapshot/refresh' });
    const first = statSync(join(backend.config.snapshotDir, 'runs', 'keep-b.json'), { bigint: true });
    await backend.app.inject({ method: 'POST', url: '/snapshot/refresh' });
    const second = statSync(join(backend.config.snapshotDir, 'runs', 'keep-b.json'), { bigint: true });
    // A hard link to the previous version's file: the same inode, nothing written.
    expect(second.ino).toBe(first.ino);
    const media = readdirSync(join(backend.config.snapshotDir, 'media', 'keep-a', 'showcase'));
    expect(media).toEqual(['shot.png']);

    // A run whose detail changed is written afresh.
    await backend.app.runs.rows.markPublished({ id: 'keep-b', publishedAt: new Date().toISOString(), sourceRepo: 'https://example.com/repo', playableBuild: null });
    await backend.app.inject({ method: 'POST', url: '/snapshot/refresh' });
    const third = statSync(join(backend.config.snapshotDir, 'runs', 'keep-b.json'), { bigint: true });
    expect(third.ino).not.toBe(first.ino);
    expect(statSync(join(backend.config.snapshotDir, 'runs', 'keep-c.json'), { bigint: true }).nlink).toBeGreaterThan(1n);
  });

  it('writes no run file again in a bucket when nothing changed', async () => {
    const real = openBlobStore(loadConfig({ DATA_DIR: s3Dir, ...s3.env('refresh-carry') }));
    const written: string[] = [];
    // The real bucket store, noting which keys receive a body (a PUT or an upload).
    const blobs: BlobStore = {
      ...real,
      driver: real.driver,
      location: real.location,
      put: (key, body) => (written.push(key), real.put(key, body)),
      stage: (key, body) => (written.push(key), real.stage(key, body)),
    };
    try {
      await blobs.put('run-media/keep-a/showcase/shot.png', Buffer.from('png bytes'));
      const { rows, grades } = backend.app.runs;
      const writer = snapshotWriter({ store: backend.store, rows, grades, blobs, output: bucketSnapshot(blobs), deployHook: null, onWarning: () => {}, exclusive: (work) => work() });
      expect((await writer.refresh()).runs).toBe(3);
      const runFiles = () => written.filter((key) => /^snapshot\/versions\/[^/]+\/runs\//.test(key));
      expect(runFiles()).toHaveLength(3);
      written.length = 0;
      expect((await writer.refresh()).runs).toBe(3);
      expect(runFiles()).toEqual([]);
      const current = (await real.read('snapshot/current'))!.toString();
      expect(JSON.parse((await real.read(`snapshot/versions/${current}/runs/keep-c.json`))!.toString())).toMatchObject({ id: 'keep-c' });
      expect(await real.exists(`snapshot/versions/${current}/media/keep-a/showcase/shot.png`)).toBe(true);
    } finally {
      real.close();
    }
  });

  it('answers 503 snapshot_busy with Retry-After while another process holds the lock', async () => {
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    let holding!: () => void;
    const acquired = new Promise<void>((done) => (holding = done));
    const other = new ScheduleLocks(redis, backend.config.redisPrefix).withLock('snapshot', async () => {
      holding();
      await held;
    });
    await acquired;
    try {
      const startedAt = Date.now();
      const answer = await backend.app.inject({ method: 'POST', url: '/snapshot/refresh' });
      expect(answer.statusCode).toBe(503);
      expect(answer.json().error.code).toBe('snapshot_busy');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      expect(Date.now() - startedAt).toBeLessThan(10_000);
    } finally {
      release();
      await other;
    }
    expect((await backend.app.inject({ method: 'POST', url: '/snapshot/refresh' })).statusCode).toBe(200);
  }, 20_000);
});
