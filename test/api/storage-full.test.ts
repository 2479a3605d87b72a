import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorageFull } from '../../src/db/storage-full.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { fillStore } from '../helpers/temp-store.js';
import { startTestBackend, TEST_ENGINE, type TestBackend } from '../helpers/test-backend.js';

const MODEL = 'openai/gpt-5';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL };

let backend: TestBackend;
let operator: string;
beforeAll(async () => {
  backend = await startTestBackend({}, { pricedModels: [MODEL] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  operator = (await backend.auth.register('op')).token;
});
afterAll(() => backend.close());

const post = (url: string, payload: object) =>
  backend.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${operator}` } });

describe('a full disk', () => {
  it('is recognised in one place, SQLite\'s, Redis\'s and the file system\'s, through causes and from worker threads', () => {
    expect(isStorageFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(true);
    expect(isStorageFull(new Error('wrapped', { cause: { code: 'SQLITE_IOERR_WRITE' } }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))).toBe(true);
    // ioredis's reply error for a Redis that cannot write its append-only file, wrapped by the run queue.
    const misconf = new Error('MISCONF Errors writing to the AOF file: No space left on device');
    expect(isStorageFull(new Error('run queue script claimNextJob: MISCONF Errors writing to the AOF file', { cause: misconf }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error('locked'), { code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isStorageFull('SQLITE_FULL')).toBe(false);
  });

  // SQLite-only: the disk fills by capping the SQLite file's page count (fillStore), which has no
  // PostgreSQL counterpart a test can set from the connection.
  it.skipIf(TEST_ENGINE === 'postgres')('answers writes 503 storage_full with Retry-After, keeps reads and health answering, and takes writes again once there is room', async () => {
    const accepted: string[] = [];
    const lift = fillStore(backend.db);
    let refused;
    try {
      // Launches land while they fit in the pages the store has; one will not.
      for (let i = 0; i < 500 && !refused; i += 1) {
        const response = await post('/jobs', launch);
        expect(response.statusCode, response.body).not.toBe(500);
        if (response.statusCode === 202) accepted.push(response.json().jobId);
        else refused = response;
      }
      expect(refused?.statusCode).toBe(503);
      expect(refused?.headers['retry-after']).toBe('30');
      expect(refused?.json().error.code).toBe('storage_full');
      expect(refused?.json().error.message).toMatch(/^The store cannot take writes right now \(its disk is full or failing\); nothing was stored\./);

      expect((await backend.app.inject('/healthz')).statusCode).toBe(200);
      const listed = await backend.app.inject({ url: '/jobs/active', headers: { authorization: `Bearer ${operator}` } });
      expect(listed.statusCode).toBe(200);
      expect((await backend.app.inject(`/jobs/${accepted[0]}`)).statusCode).toBe(200);
    } finally {
      lift();
    }
    // Every launch acknowledged is kept; the refused one left nothing behind.
    const stored = backend.db.prepare('SELECT id FROM jobs ORDER BY seq').pluck().all();
    expect(stored).toEqual(accepted);
    expect((await post('/jobs', launch)).statusCode).toBe(202);
  });
});
