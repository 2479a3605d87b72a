/**
 * The claim writer thread (see src/jobs/dispatch-recorder.ts): writes batches of claims to
 * the store over its own connection, and keeps the write-ahead log short with a passive
 * checkpoint every second, so neither the claim's commits nor a checkpoint's sync to disk
 * run on the API's thread. Each batch is acknowledged by number once committed; a failed
 * write is reported and tried again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { jobsTable } from '../db/jobs-table.js';
import { tuneConnection } from '../db/open-database.js';
import { STOP_WRITER, type DispatchBatch, type DispatchWriterInput, type DispatchWriterReply } from '../jobs/dispatch-recorder.js';

const RETRY_MS = 100;
const CHECKPOINT_MS = 1000;

const { file } = workerData as DispatchWriterInput;
const db = tuneConnection(new BetterSqlite3(file));
const jobs = jobsTable(db);
const port = parentPort!;
const reply = (message: DispatchWriterReply) => port.postMessage(message);

let stopping = false;

port.on('message', async (message: DispatchBatch | typeof STOP_WRITER) => {
  // Stopped by a message rather than terminated: a thread terminated inside a write that
  // waits on a locked store takes the whole process down with it.
  if (message === STOP_WRITER) {
    stopping = true;
    db.close();
    port.close();
    return;
  }
  const { batch, claims } = message;
  while (!stopping) {
    try {
      jobs.markAllDispatched(claims.map(({ seq, tokenHash, atMs }) => ({ seq, tokenHash, at: new Date(atMs).toISOString() })));
      reply({ batch });
      return;
    } catch (error) {
      reply({ batch, error: error instanceof Error ? error.message : String(error) });
      await sleep(RETRY_MS);
    }
  }
  // Stopped with the batch unwritten: it stays in Redis, and the next boot copies it.
});

setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or closing: the next second tries again.
  }
}, CHECKPOINT_MS).unref();
