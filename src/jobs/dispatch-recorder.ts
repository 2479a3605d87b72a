import type { JobsTable } from '../db/jobs-table.js';

/**
 * Records claims in SQLite, one transaction per batch. Redis answers concurrent claims in
 * one reply chunk, and their continuations run in the same microtask round, so flushing on
 * a microtask commits them together without waiting a turn of the event loop: WAL writes
 * and checkpoints stay off the per-claim cost. Each claim still answers only after its row
 * is committed, so a driver never sees a job its claim has not recorded.
 */
export function dispatchRecorder(jobs: JobsTable) {
  let pending: Array<{ seq: number; tokenHash: string }> = [];
  let committed: Promise<void> | null = null;

  return (seq: number, tokenHash: string): Promise<void> => {
    pending.push({ seq, tokenHash });
    committed ??= new Promise<void>((done, fail) =>
      queueMicrotask(() => {
        const batch = pending;
        pending = [];
        committed = null;
        try {
          jobs.markAllDispatched(batch, new Date().toISOString());
          done();
        } catch (error) {
          fail(error);
        }
      }),
    );
    return committed;
  };
}
