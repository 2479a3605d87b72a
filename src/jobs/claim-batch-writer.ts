import { setTimeout as sleep } from 'node:timers/promises';
import { SECOND } from '../time.js';

/**
 * What the claim writers share (src/jobs/dispatch-recorder.ts): the batches, the replies, and
 * the loop that writes them in order with backoff. Kept free of the query builder, so the
 * SQLite writer thread that imports it starts in milliseconds.
 */

/** A batch of claims as one compiled statement (`JobsTable.dispatchedStatement`), numbered for its acknowledgement. */
export interface DispatchBatch {
  batch: number;
  sql: string;
  parameters: readonly unknown[];
}

/**
 * What a writer answers: a batch written (`resumed` on the first one after a refusal), or
 * that the store started refusing writes (once, with the first error, until one goes through).
 */
export type DispatchWriterReply = { batch: number; resumed?: true } | { refused: string };

/** Tells the writer thread to close its connection and end once its current write returns. */
export const STOP_WRITER = 'stop';

/** The first retry of a refused write waits this long (ms); each further one twice as long... */
const FIRST_RETRY_MS = 100;
/** ...up to this (ms). */
const MAX_RETRY_MS = 5 * SECOND;

/**
 * Writes batches in the order they are added, one at a time. A store that refuses a write
 * (full, locked past the busy timeout, read-only, unreachable) is tried again after a backoff
 * that doubles up to MAX_RETRY_MS, and said once when it starts refusing, with the first
 * error, and once when it takes writes again: a store refusing for minutes logged a line per
 * batch every 100 ms. Stopped with batches unwritten, they stay in Redis, and the next boot
 * copies them.
 */
export function claimBatchWriter(write: (batch: DispatchBatch) => unknown, reply: (message: DispatchWriterReply) => void) {
  const waiting: DispatchBatch[] = [];
  const stopped = new AbortController();
  let idle: Promise<void> = Promise.resolve();

  async function writeWaiting(): Promise<void> {
    let retryMs = 0;
    while (waiting.length > 0 && !stopped.signal.aborted) {
      const batch = waiting[0]!;
      try {
        await write(batch);
      } catch (error) {
        if (retryMs === 0) reply({ refused: error instanceof Error ? error.message : String(error) });
        retryMs = Math.min(MAX_RETRY_MS, Math.max(FIRST_RETRY_MS, retryMs * 2));
        await sleep(retryMs, undefined, { signal: stopped.signal }).catch(() => {});
        continue;
      }
      waiting.shift();
      reply({ batch: batch.batch, ...(retryMs > 0 ? { resumed: true as const } : {}) });
      retryMs = 0;
    }
  }

  let writing = false;
  return {
    add(batch: DispatchBatch): void {
      waiting.push(batch);
      if (writing) return;
      writing = true;
      idle = writeWaiting().finally(() => (writing = false));
    },
    /** Stops after the write under way; resolves once it returned. */
    stop(): Promise<void> {
      stopped.abort();
      return idle;
    },
  };
}
