import type { Redis } from 'ioredis';
import { snapshotBusy } from '../errors.js';
import { ScheduleLocks } from '../queue/schedule-lock.js';
import { MINUTE, SECOND } from '../time.js';

/** Runs `work` as the deployment's one snapshot writer. */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * How long a refresh waits for another process's refresh before it gives up (ms): a
 * request (`POST /snapshot/refresh`) waits briefly and answers 503 `snapshot_busy`; a
 * snapshot worker, which nobody waits on, waits up to the long bound.
 */
export const REQUEST_LOCK_WAIT = 5 * SECOND;
export const WORKER_LOCK_WAIT = 10 * MINUTE;

/**
 * The API's writer (`POST /snapshot/refresh`) and the snapshot workers in any process take
 * the same Redis lock, so refreshes never interleave across processes.
 */
export function snapshotLock(redis: Redis, prefix: string, waitMs: number = REQUEST_LOCK_WAIT): Exclusive {
  const locks = new ScheduleLocks(redis, prefix);
  return async (work) => {
    const outcome = await locks.withLock('snapshot', () => work(), { waitMs });
    if (!outcome.held) throw snapshotBusy(`Another process has been refreshing the snapshot for over ${waitMs / SECOND} s; this refresh did not start. Retry later.`);
    return outcome.value;
  };
}
