import { renameSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cellCountQueries, type CellRow } from '../../src/coverage/cell-counts.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { jobsTable } from '../../src/db/jobs-table.js';
import { HttpError } from '../../src/errors.js';
import { openDatabase } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { gateEvidenceQuery } from '../../src/ladders/gate-evidence.js';
import { decodeRunRecord } from '../../src/runs/decode-run-record.js';
import { cabinetStats } from '../../src/runs/cabinet-stats.js';
import { runRows } from '../../src/runs/run-rows.js';
import { providerStats } from '../../src/stats/provider-stats.js';
import { statsReader, type StatsReader } from '../../src/stats/stats-reader.js';
import { jobRow, useTempStore } from '../helpers/temp-store.js';
import { ggRunRecord, slice } from './gg-run-records.js';

const store = useTempStore('evb-stats-reader-');
/** The temporary store's file, as the API names it to the thread. */
const source = () => ({ engine: 'sqlite', file: store.db.name }) as const;
let reader: StatsReader;
beforeEach(() => {
  reader = statsReader(source());
});
afterEach(() => reader.close());

async function storeGgRun(id: string, calls: number): Promise<void> {
  const record = ggRunRecord({ id, model: 'vendor/model', summary: { executionMode: 'tool_calling', providerStats: [slice('Together', 'vendor/model', { calls })], toolCalls: 3 } });
  const decoded = decodeRunRecord(record);
  await runRows(sqliteStore<StoreSchema>(store.db)).store({ id, jobId: null, record: JSON.stringify(record), recordFormat: 1, decodeError: null, events: '[]', lifted: decoded.lifted });
}

describe('statistics reader thread', () => {
  it('answers what the aggregates answer on the API connection, writes committed just before included', async () => {
    await storeGgRun('gg-1', 10);
    expect(await reader.read('providers')).toEqual(await providerStats(sqliteStore(store.db)).read());
    await storeGgRun('gg-2', 7);
    const providers = await reader.read('providers');
    expect(providers.runsScanned).toBe(2);
    expect(providers.providers[0]!.totals.calls).toBe(17);
    const now = Date.now();
    expect((await reader.read('cabinet')).weekly).toEqual((await cabinetStats(sqliteStore<StoreSchema>(store.db))(now)).weekly);
    expect((await reader.read('model-accuracy')).models.map((model) => model.modelId)).toEqual(['vendor/model']);
  });

  it('shares a read among those asked while it waits its turn, never one already running', async () => {
    storeGgRun('gg-1', 10);
    // The first read takes the thread; the rest wait behind it, as one read per aggregate.
    const running = reader.read('providers');
    const waiting = Array.from({ length: 20 }, () => reader.read('providers'));
    const counts = Array.from({ length: 5 }, () => reader.read('job-state-counts'));
    const answers = await Promise.all(waiting);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).not.toBe(await running);
    expect(new Set(await Promise.all(counts)).size).toBe(1);

    // A write committed while a read runs is in the next read, not shared into the running one.
    const before = reader.read('providers');
    storeGgRun('gg-2', 7);
    const after = reader.read('providers');
    expect((await after).runsScanned).toBe(2);
    expect(await after).not.toBe(await before);
  });

  it('counts in-flight jobs per harness and state', async () => {
    await jobsTable(sqliteStore<StoreSchema>(store.db)).insert([jobRow('j1'), jobRow('j2')]);
    expect(await reader.read('job-state-counts')).toEqual([{ harness: 'codex', state: 'queued', jobs: 2 }]);
  });

  it('reads cell counts and gate evidence as the queries do inline, sharing a waiting read only with the same arguments', async () => {
    await jobsTable(sqliteStore<StoreSchema>(store.db)).insert([jobRow('j1'), jobRow('j2')]);
    const { testCaseSlug, testCaseVersion, variant, harnessSlug, modelId } = jobRow('j1');
    const cells: CellRow[] = [[0, testCaseSlug, testCaseVersion, variant, 'none', harnessSlug, modelId, null, null], [1, 'other', 'v1.0.0', 'base', 'none', 'codex', 'm', null, null]];
    const inline = await cellCountQueries(sqliteStore<StoreSchema>(store.db))({ cells, reviewer: 'alice' });
    expect(inline.jobs).toEqual([{ cell: 0, inFlight: 2, pending: 0 }]);

    const running = reader.read('providers');
    const [alice, aliceAgain, bob] = [reader.read('cell-counts', { cells, reviewer: 'alice' }), reader.read('cell-counts', { cells, reviewer: 'alice' }), reader.read('cell-counts', { cells, reviewer: 'bob' })];
    expect(await alice).toEqual(inline);
    expect(await aliceAgain).toBe(await alice);
    expect(await bob).not.toBe(await alice);
    await running;

    const args = { cells, reviewer: 'alice', floor: 1, unloadedBroken: 1 } as const;
    expect(await reader.read('gate-evidence', args)).toEqual(await gateEvidenceQuery(sqliteStore<StoreSchema>(store.db))(args));
  });

  it('stops a read that runs past its time, with its thread, and answers 503', async () => {
    const hurried = statsReader(source(), { timeoutMs: 1 });
    try {
      // Starting the thread and opening the store alone take longer than a millisecond.
      const error = (await hurried.read('cabinet').catch((caught: unknown) => caught)) as HttpError;
      expect(error).toBeInstanceOf(HttpError);
      expect(error.statusCode).toBe(503);
      expect(error.message).toBe('Reading statistics (cabinet) took longer than 0.001 s and was stopped; retry later.');
    } finally {
      await hurried.close();
    }
  });

  it('answers 503 at once, and keeps the process, when its thread cannot open the store; the next read opens it again', async () => {
    const failures: Error[] = [];
    const failing = statsReader(source(), { onError: (error) => failures.push(error) });
    const file = store.db.name;
    renameSync(file, `${file}.away`);
    try {
      const began = Date.now();
      const error = (await failing.read('providers').catch((caught: unknown) => caught)) as HttpError;
      expect(error).toBeInstanceOf(HttpError);
      expect([error.statusCode, error.code]).toEqual([503, 'stats_unavailable']);
      expect(error.message).toBe('Reading statistics (providers) failed: the statistics thread could not read the store; retry later.');
      // Not the 30 s read timeout: the failure itself ends the read.
      expect(Date.now() - began).toBeLessThan(10_000);
      expect(failures.map((failure) => failure.message)).toEqual([expect.stringMatching(/^a worker thread failed: .*SQLITE_CANTOPEN/)]);
    } finally {
      renameSync(`${file}.away`, file);
    }
    try {
      expect((await failing.read('providers')).runsScanned).toBe(0);
    } finally {
      await failing.close();
    }
  });

  it('ends reads with the reader: those running or waiting fail, later ones are refused', async () => {
    const closing = statsReader(source());
    const reads = Promise.allSettled([closing.read('cabinet'), closing.read('providers')]);
    await closing.close();
    expect((await reads).map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    const late = (await closing.read('cabinet').catch((caught: unknown) => caught)) as HttpError;
    expect(late.statusCode).toBe(503);
    expect(late.message).toContain('shutting down');
  });

  it('refuses an in-memory store, which a second connection cannot open', () => {
    const memory = openDatabase(':memory:');
    expect(() => statsReader({ engine: 'sqlite', file: memory.name })).toThrow('in-memory store');
    memory.close();
  });
});
