import BetterSqlite3 from 'better-sqlite3';
import { cabinetStats } from '../runs/cabinet-stats.js';
import { modelAccuracy } from '../stats/model-accuracy.js';
import { providerStats } from '../stats/provider-stats.js';

/** Which `GET /stats/*` aggregate a task reads. */
export type StatsRead = 'providers' | 'model-accuracy' | 'cabinet';

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
  return {
    file,
    providers: () => providers.read(),
    'model-accuracy': () => accuracy(),
    cabinet: (now: number) => cabinet(now),
  };
}

/** This thread's read-only connection and statements, opened by its first task. */
let readers: ReturnType<typeof readersOf> | null = null;

/**
 * Piscina task: one whole-history statistics aggregate, over a read-only connection of the
 * thread's own, so a read that scans every stored run never holds the event loop that
 * serves HTTP (src/stats/stats-reader.ts).
 */
export default function readStats(task: StatsTask): unknown {
  if (readers?.file !== task.file) readers = readersOf(task.file);
  return readers[task.read](task.now);
}
