import type { BackendStore } from '../../src/db/dialect.js';
import { writeTransaction } from '../../src/db/dialect.js';
import { decodeRunRecord } from '../../src/runs/decode-run-record.js';
import { runValues, type StoredRun } from '../../src/runs/run-rows.js';
import { storeGgStats } from '../../src/stats/gg-stats-rows.js';

/** Runs per multi-row INSERT: the runs table's columns times this stays under ~30,000 bound parameters. */
const BATCH = 300;

/**
 * Stores `count` run records as the run store writes them (its own row values and gg lifting),
 * `BATCH` runs per transaction and one multi-row insert each, instead of one transaction per
 * run as a push makes: a bench's seed in seconds rather than minutes. Answers the milliseconds taken.
 */
export async function seedRuns(store: BackendStore, count: number, record: (i: number) => { id: string } & Record<string, unknown>): Promise<number> {
  const start = Date.now();
  const now = new Date().toISOString();
  for (let from = 0; from < count; from += BATCH) {
    const rows: Array<StoredRun & { raw: unknown }> = [];
    for (let i = from; i < Math.min(count, from + BATCH); i++) {
      const raw = record(i);
      rows.push({ id: raw.id, jobId: null, record: JSON.stringify(raw), recordFormat: 1, decodeError: null, events: '[]', lifted: decodeRunRecord(raw).lifted, raw });
    }
    await writeTransaction(store, async (trx) => {
      await trx.insertInto('runs').values(rows.map((row) => runValues(row, now))).execute();
      for (const row of rows) if (row.lifted.harness === 'gg') await storeGgStats(trx, row.id, 'gg', row.lifted.modelId, row.raw);
    });
  }
  return Date.now() - start;
}
