import BetterSqlite3 from 'better-sqlite3';
import { jobStateCounts } from '../db/job-state-counts.js';
import { cabinetStats } from '../runs/cabinet-stats.js';
import { modelAccuracy } from '../stats/model-accuracy.js';
import { providerStats } from '../stats/provider-stats.js';

/** Which aggregate a task reads: a `GET /stats/*` answer, or the in-flight jobs per harness and state. */
export type StatsRead = 'providers' | 'model-accuracy' | 'cabinet' | 'job-state-counts';

export interface StatsTask {
  /** The store's file. */
  file: string;
  read: StatsRead;
  /** The reading process's clock (ms), for the week buckets of the cabinet. */
  now: number;
}

const BUSY_TIMEOUT_MS = 5000;

function readersOf(file: string) {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const providers = providerStats(db);
  const accuracy = modelAccuracy(db);
  const cabinet = cabinetStats(db);
  const jobCounts = jobStateCounts(db);
  return {
    file,
    providers: () => providers.read(),
    'model-accuracy': () => accuracy(),
    cabinet: (now: number) => cabinet(now),
    'job-state-counts': () => jobCounts(),
  };
}

/** This thread's read-only connection and statements, opened by its first task. */
let readers: ReturnType<typeof readersOf> | null = null;

/**
 * Piscina task: one aggregate over a whole table, over a read-only connection of the
 * thread's own, so a read that scans every stored run or in-flight job never holds the
 * event loop that serves HTTP (src/stats/stats-reader.ts).
 */
export default function readStats(task: StatsTask): unknown {
  if (readers?.file !== task.file) readers = readersOf(task.file);
  return readers[task.read](task.now);
}
