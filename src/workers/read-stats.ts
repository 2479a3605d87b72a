import { workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { cellCountQueries, type CellCountArgs } from '../coverage/cell-counts.js';
import { postgresStore, sqliteStore, type BackendStore } from '../db/dialect.js';
import { storePool } from '../db/pool-policy.js';
import { classifyStoreError, type StoreErrorClass } from '../db/store-errors.js';
import { jobStateCounts } from '../db/job-state-counts.js';
import { BUSY_TIMEOUT_MS } from '../db/open-database.js';
import type { StoreSchema } from '../db/store-schema.js';
import { gateEvidenceQuery, type GateEvidenceArgs } from '../ladders/gate-evidence.js';
import { cabinetStats } from '../runs/cabinet-stats.js';
import { modelAccuracy } from '../stats/model-accuracy.js';
import { providerStats } from '../stats/provider-stats.js';

/** The store the thread reads: the SQLite file, opened read-only, or a PostgreSQL database. */
export type StatsSource = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

/** The pool's `workerData`. */
export interface StatsReaderInput {
  source: StatsSource;
}

/** The thread's store: the SQLite file opened read-only, or its own PostgreSQL pool (the `statistics` policy: timeouts and a bounded queue). */
function openStore(source: StatsSource): BackendStore {
  if (source.engine === 'postgres') {
    return postgresStore<StoreSchema>(storePool('statistics', { connectionString: source.url }));
  }
  const raw = new BetterSqlite3(source.file, { readonly: true, fileMustExist: true });
  raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return sqliteStore<StoreSchema>(raw);
}

const store = openStore((workerData as StatsReaderInput).source);

const providers = providerStats(store);
const accuracy = modelAccuracy(store);
const cabinet = cabinetStats(store);
const jobCounts = jobStateCounts(store);
const cellCounts = cellCountQueries(store);
const evidence = gateEvidenceQuery(store);

/**
 * What the thread reads, each from the reading process's clock (ms, for the cabinet's week
 * buckets) and its arguments: the `GET /stats/*` aggregates, the in-flight jobs per harness
 * and state, and the per-cell counts and gate evidence behind coverage matrices, ladder
 * boards and top-ups.
 */
const readers = {
  providers: () => providers.read(),
  'model-accuracy': () => accuracy(),
  cabinet: (now: number) => cabinet(now),
  'job-state-counts': () => jobCounts(),
  'cell-counts': (_now: number, args: CellCountArgs) => cellCounts(args),
  'gate-evidence': (_now: number, args: GateEvidenceArgs) => evidence(args),
};
export type StatsReaders = typeof readers;
export type StatsRead = keyof StatsReaders;

export interface StatsTask {
  read: StatsRead;
  now: number;
  args: unknown;
}

/**
 * What a read answers across the thread boundary: its value, or the store error it met,
 * classified here (src/db/store-errors.ts), since an error that crosses to the host keeps
 * only its message, and with it the host could not tell a store outage from anything else.
 */
export type StatsOutcome = { value: unknown } | { storeError: StoreErrorClass & { message: string } };

/**
 * Piscina task: one read that scans a whole table, or every run of many cells, over this
 * thread's own connection (read-only on SQLite), so it never holds the event loop that
 * serves HTTP (src/stats/stats-reader.ts).
 */
export default async function readStats(task: StatsTask): Promise<StatsOutcome> {
  try {
    return { value: await (readers[task.read] as (now: number, args: unknown) => unknown)(task.now, task.args) };
  } catch (error) {
    const found = classifyStoreError(error);
    if (found) return { storeError: { ...found, message: (error as Error).message } };
    throw error;
  }
}
