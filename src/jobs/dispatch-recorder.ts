import type { JobsTable } from '../db/jobs-table.js';

/** Claims wait at most this long (ms) for their row, so one commit carries many. */
const FLUSH_MS = Number(process.env.FLUSH_MS ?? 2);
/** ...or until this many are waiting. */
const FLUSH_CLAIMS = 512;

/** A claim Redis decided, waiting for its SQLite row to be written. */
export interface PendingDispatch {
  seq: number;
  tokenHash: string;
  at: string;
}

export interface DispatchRecorder {
  /** Queues a claim's SQLite write; the claim answers without waiting for it. */
  record(jobId: string, seq: number, tokenHash: string): void;
  /** The token hash of a claim this process made whose row is not written yet. */
  pendingTokenHash(jobId: string): string | undefined;
  /** Writes every queued claim now (shutdown, and before reads that must see them). */
  flush(): void;
}

/**
 * Copies claims to SQLite behind the claim's answer. Redis decides a claim (its run state
 * holds `dispatched` and the token's hash before the script returns), so the row is a copy,
 * as for every other transition; writing it on the next turn of the event loop takes the
 * commit off the dispatcher's wait, and concurrent claims share one transaction. Until it is
 * written, `pendingTokenHash` answers for the claim (a driver that reports at once is not
 * refused), and a process that dies first leaves the claim in Redis, from where boot's
 * reconcile copies it (src/jobs/reconcile-jobs.ts). A failed write (the store busy past its
 * timeout) keeps the claims and tries again on the next turn.
 */
export function dispatchRecorder(jobs: JobsTable, onError: (error: unknown) => void): DispatchRecorder {
  let pending = new Map<string, PendingDispatch>();
  let scheduled: NodeJS.Timeout | null = null;

  function flush(): void {
    if (scheduled) clearTimeout(scheduled);
    scheduled = null;
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      jobs.markAllDispatched([...batch.values()]);
    } catch (error) {
      onError(error);
      for (const [id, claim] of batch) if (!pending.has(id)) pending.set(id, claim);
      scheduled = setTimeout(flush, FLUSH_MS);
    }
  }

  return {
    record(jobId, seq, tokenHash) {
      pending.set(jobId, { seq, tokenHash, at: new Date().toISOString() });
      if (pending.size >= FLUSH_CLAIMS) flush();
      else scheduled ??= setTimeout(flush, FLUSH_MS);
    },
    pendingTokenHash: (jobId) => pending.get(jobId)?.tokenHash,
    flush,
  };
}
