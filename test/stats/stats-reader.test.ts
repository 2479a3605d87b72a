import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import { HttpError } from '../../src/errors.js';
import { decodeRunRecord } from '../../src/runs/decode-run-record.js';
import { cabinetStats } from '../../src/runs/cabinet-stats.js';
import { runRows } from '../../src/runs/run-rows.js';
import { providerStats } from '../../src/stats/provider-stats.js';
import { statsReader, type StatsReader } from '../../src/stats/stats-reader.js';
import { ggRunRecord, slice } from './gg-run-records.js';

let dir: string;
let db: Database;
let reader: StatsReader;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'evb-stats-reader-'));
  db = openDatabase(join(dir, 'backend.sqlite'));
  reader = statsReader(db);
});
afterEach(async () => {
  await reader.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function storeGgRun(id: string, calls: number): void {
  const record = ggRunRecord({ id, model: 'vendor/model', summary: { executionMode: 'tool_calling', providerStats: [slice('Together', 'vendor/model', { calls })], toolCalls: 3 } });
  const decoded = decodeRunRecord(record);
  runRows(db).store({ id, jobId: null, record: JSON.stringify(record), recordFormat: 1, decodeError: null, events: '[]', lifted: decoded.lifted });
}

describe('statistics reader thread', () => {
  it('answers what the aggregates answer on the API connection, writes committed just before included', async () => {
    storeGgRun('gg-1', 10);
    expect(await reader.read('providers')).toEqual(providerStats(db).read());
    storeGgRun('gg-2', 7);
    const providers = await reader.read('providers');
    expect(providers.runsScanned).toBe(2);
    expect(providers.providers[0]!.totals.calls).toBe(17);
    const now = Date.now();
    expect((await reader.read('cabinet')).weekly).toEqual(cabinetStats(db)(now).weekly);
    expect((await reader.read('model-accuracy')).models.map((model) => model.modelId)).toEqual(['vendor/model']);
  });

  it('refuses reads beyond the waiting bound with a 429, and answers every read it took', async () => {
    const reads = Array.from({ length: 24 }, () => reader.read('cabinet'));
    const outcomes = await Promise.allSettled(reads);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    for (const outcome of refused) {
      const error = (outcome as PromiseRejectedResult).reason as HttpError;
      expect(error.statusCode).toBe(429);
      expect(error.retryAfterSeconds).toBe(1);
      expect(error.message).toContain('statistics reads are already waiting');
    }
    expect(outcomes.length - refused.length).toBeGreaterThanOrEqual(16);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled').every((outcome) => (outcome as PromiseFulfilledResult<{ runs: number }>).value.runs === 0)).toBe(true);
  });

  it('refuses an in-memory store, which a second connection cannot open', () => {
    const memory = openDatabase(':memory:');
    expect(() => statsReader(memory)).toThrow('in-memory store');
    memory.close();
  });
});
