import { workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { jobStateCounts } from '../db/job-state-counts.js';
import { BUSY_TIMEOUT_MS } from '../db/open-database.js';
import { cabinetStats } from '../runs/cabinet-stats.js';
import { modelAccuracy } from '../stats/model-accuracy.js';
import { providerStats } from '../stats/provider-stats.js';

/** Which aggregate a task reads: a `GET /stats/*` answer, or the in-flight jobs per harness and state. */
export type StatsRead = 'providers' | 'model-accuracy' | 'cabinet' | 'job-state-counts';

/** The pool's `workerData`. */
export interface StatsReaderInput {
  /** The store's file. */
  file: string;
}

export interface StatsTask {
  read: StatsRead;
  /** The reading process's clock (ms), for the week buckets of the cabinet. */
  now: number;
}

const db = new BetterSqlite3((workerData as StatsReaderInput).file, { readonly: true, fileMustExist: true });
db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
const providers = providerStats(db);
const accuracy = modelAccuracy(db);
const cabinet = cabinetStats(db);
const jobCounts = jobStateCounts(db);
const readers: Record<StatsRead, (now: number) => unknown> = {
  providers: () => providers.read(),
  'model-accuracy': () => accuracy(),
  cabinet: (now) => cabinet(now),
  'job-state-counts': () => jobCounts(),
};

/**
 * Piscina task: one aggregate over a whole table, over this thread's read-only connection,
 * so a read that scans every stored run or in-flight job never holds the event loop that
 * serves HTTP (src/stats/stats-reader.ts).
 */
export default function readStats(task: StatsTask): unknown {
  return readers[task.read](task.now);
}
