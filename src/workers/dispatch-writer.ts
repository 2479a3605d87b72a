/**
 * The SQLite claim writer thread (see src/jobs/dispatch-recorder.ts): writes batches of
 * claims to the store over its own connection, and keeps the write-ahead log short with a
 * passive checkpoint every second, so neither the claim's commits nor a checkpoint's sync to
 * disk run on the API's thread. Each batch comes compiled (one statement, the same the store
 * module runs) and is acknowledged by number once committed; `claimBatchWriter` orders them
 * and backs off a store that refuses. The thread loads no query builder, so it starts at once.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { tuneConnection } from '../db/open-database.js';
import { claimBatchWriter, STOP_WRITER, type DispatchBatch, type DispatchWriterReply } from '../jobs/claim-batch-writer.js';

const CHECKPOINT_MS = 1000;

/** The writer thread's `workerData`. */
export interface DispatchWriterInput {
  file: string;
}

const { file } = workerData as DispatchWriterInput;
const db = tuneConnection(new BetterSqlite3(file));
const port = parentPort!;
// Every batch is the same statement text (its rows are one parameter): prepared once.
const prepared = new Map<string, BetterSqlite3.Statement>();
const writer = claimBatchWriter(
  ({ sql, parameters }) => {
    let statement = prepared.get(sql);
    if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
    statement.run(...parameters);
  },
  (message: DispatchWriterReply) => port.postMessage(message),
);

port.on('message', (message: DispatchBatch | typeof STOP_WRITER) => {
  // Stopped by a message rather than terminated: a thread terminated inside a write that
  // waits on a locked store takes the whole process down with it.
  if (message === STOP_WRITER) {
    void writer.stop();
    db.close();
    port.close();
    return;
  }
  writer.add(message);
});

setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or closing: the next second tries again.
  }
}, CHECKPOINT_MS).unref();
