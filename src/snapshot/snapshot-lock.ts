import type { Redis } from 'ioredis';
import { ScheduleLocks } from '../queue/schedule-lock.js';
import { MINUTE, SECOND } from '../time.js';

/** Runs `work` as the deployment's one snapshot writer. */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

/** How long a refresh waits for another process's refresh before it fails (ms). */
const WAIT = 10 * MINUTE;

/**
 * The API's writer (`POST /snapshot/refresh`) and the snapshot workers in any process take
 * the same Redis lock, so refreshes never interleave across processes.
 */
export function snapshotLock(redis: Redis, prefix: string): Exclusive {
  const locks = new ScheduleLocks(redis, prefix);
  return async (work) => {
    const outcome = await locks.withLock('snapshot', () => work(), { waitMs: WAIT });
    if (!outcome.held) throw new Error(`Another process held the snapshot lock for longer than ${WAIT / SECOND} s.`);
    return outcome.value;
  };
}
