import { Piscina } from 'piscina';
import type { Database } from '../db/open-database.js';
import { toError, tooManyRequests } from '../errors.js';
import type { cabinetStats } from '../runs/cabinet-stats.js';
import type { StatsRead, StatsTask } from '../workers/read-stats.js';
import { workerFile } from '../workers/worker-file.js';
import type { modelAccuracy } from './model-accuracy.js';
import type { providerStats } from './provider-stats.js';

/** What each read answers, as its route serves it. */
export interface StatsAnswers {
  providers: ReturnType<ReturnType<typeof providerStats>['read']>;
  'model-accuracy': ReturnType<ReturnType<typeof modelAccuracy>>;
  cabinet: ReturnType<ReturnType<typeof cabinetStats>>;
}

export interface StatsReader {
  read<K extends StatsRead>(read: K): Promise<StatsAnswers[K]>;
  close(): Promise<void>;
}

/** Reads waiting for the thread beyond the one it runs; more are refused with a 429. */
const MAX_WAITING = 16;
/** The thread ends after this long (ms) without a read, and starts again with the next. */
const IDLE_MS = 60_000;

/**
 * The `GET /stats/*` aggregates scan the whole history (at 100,000 stored runs each took
 * 145–270 ms, the HTTP event loop held all the while, claims included), so they run on a
 * worker thread of their own (src/workers/read-stats.ts) over a read-only connection: a
 * read sees every write committed before it was asked for. One thread, started by the first
 * read: statistics are a console's occasional page, and a second scan in parallel would
 * only take a core from the API.
 */
export function statsReader(db: Database): StatsReader {
  if (db.memory) throw new Error('Statistics are read over a second connection, which an in-memory store cannot have.');
  const piscina = new Piscina<StatsTask, unknown>({
    filename: workerFile('read-stats'),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: IDLE_MS,
    // An idle thread must not park in Atomics.wait, holding the process open.
    atomics: 'disabled',
  });
  return {
    async read(read) {
      if (piscina.queueSize >= MAX_WAITING) {
        throw tooManyRequests(`${MAX_WAITING} statistics reads are already waiting; retry in a second.`, 1);
      }
      try {
        return (await piscina.run({ file: db.name, read, now: Date.now() })) as StatsAnswers[typeof read];
      } catch (error) {
        throw toError(error, `reading statistics (${read})`);
      }
    },
    close: () => piscina.destroy(),
  };
}
