/**
 * The claim writer thread (see src/jobs/dispatch-recorder.ts): writes batches of claims to
 * the store over its own connection, and keeps the write-ahead log short with a passive
 * checkpoint every second, so neither the claim's commits nor a checkpoint's sync to disk
 * run on the API's thread. Each batch is acknowledged by number once committed.
 *
 * Batches are written in order by one loop. A store that refuses a write (full, locked past
 * the busy timeout, read-only) is tried again after a backoff that doubles up to
 * MAX_RETRY_MS, and said once when it starts refusing, with the first error, and once when it
 * takes writes again: a store refusing for minutes logged a line per batch every 100 ms.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { jobsTable } from '../db/jobs-table.js';
import { tuneConnection } from '../db/open-database.js';
import { STOP_WRITER, type DispatchBatch, type DispatchWriterInput, type DispatchWriterReply } from '../jobs/dispatch-recorder.js';
import { SECOND } from '../time.js';

/** The first retry of a refused write waits this long (ms); each further one twice as long... */
const FIRST_RETRY_MS = 100;
/** ...up to this (ms). */
const MAX_RETRY_MS = 5 * SECOND;
const CHECKPOINT_MS = 1000;

const { file } = workerData as DispatchWriterInput;
const db = tuneConnection(new BetterSqlite3(file));
const jobs = jobsTable(db);
const port = parentPort!;
const reply = (message: DispatchWriterReply) => port.postMessage(message);

const waiting: DispatchBatch[] = [];
const stopped = new AbortController();
let writing = false;

port.on('message', (message: DispatchBatch | typeof STOP_WRITER) => {
  // Stopped by a message rather than terminated: a thread terminated inside a write that
  // waits on a locked store takes the whole process down with it.
  if (message === STOP_WRITER) {
    stopped.abort();
    db.close();
    port.close();
    return;
  }
  waiting.push(message);
  if (!writing) void writeWaiting();
});

async function writeWaiting(): Promise<void> {
  writing = true;
  let retryMs = 0;
  while (waiting.length > 0 && !stopped.signal.aborted) {
    const { batch, claims } = waiting[0]!;
    try {
      jobs.markAllDispatched(claims.map(({ seq, tokenHash, atMs }) => ({ seq, tokenHash, at: new Date(atMs).toISOString() })));
    } catch (error) {
      if (retryMs === 0) reply({ refused: error instanceof Error ? error.message : String(error) });
      retryMs = Math.min(MAX_RETRY_MS, Math.max(FIRST_RETRY_MS, retryMs * 2));
      await sleep(retryMs, undefined, { signal: stopped.signal }).catch(() => {});
      continue;
    }
    waiting.shift();
    reply({ batch, ...(retryMs > 0 ? { resumed: true } : {}) });
    retryMs = 0;
  }
  // Stopped with batches unwritten: they stay in Redis, and the next boot copies them.
  writing = false;
}

setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or closing: the next second tries again.
  }
}, CHECKPOINT_MS).unref();
