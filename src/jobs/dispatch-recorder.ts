import type { JobsTable } from '../db/jobs-table.js';

/**
 * Records claims in SQLite in one transaction per event-loop turn. Claims answered by Redis
 * in the same turn (concurrent dispatchers, pipelined replies) share a commit, so WAL
 * writes and checkpoints stay off the per-claim cost; each claim still answers only after
 * its row is committed, so a driver never sees a job its claim has not recorded. A claim
 * with no other claim in flight commits at once.
 */
export function dispatchRecorder(jobs: JobsTable) {
  let pending: Array<{ id: string; tokenHash: string }> = [];
  let committed: Promise<void> | null = null;

  function flush(done: () => void, fail: (error: unknown) => void): void {
    const batch = pending;
    pending = [];
    committed = null;
    try {
      jobs.markAllDispatched(batch, new Date().toISOString());
      done();
    } catch (error) {
      fail(error);
    }
  }

  return (id: string, tokenHash: string, othersInFlight: number): Promise<void> => {
    if (othersInFlight === 0 && committed === null) {
      // A lone claim has nothing to share a commit with; waiting a turn would only add latency.
      jobs.markDispatched(id, tokenHash, new Date().toISOString());
      return Promise.resolve();
    }
    pending.push({ id, tokenHash });
    committed ??= new Promise<void>((done, fail) => setImmediate(() => flush(done, fail)));
    return committed;
  };
}
