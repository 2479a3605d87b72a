import { setTimeout as sleep } from 'node:timers/promises';
import type { ScheduleLocks } from '../queue/schedule-lock.js';
import { MINUTE, SECOND } from '../time.js';
import type { HarnessConfigTable } from './harness-caps.js';
import type { JobsContext } from './jobs-context.js';
import { reconcileJobs, type ReconcileOptions, type ReconcileReport } from './reconcile-jobs.js';

/** A pass that failed (Redis went away again, the store was locked) is tried again after this long. */
const RETRY_MS = 5 * SECOND;
/**
 * How long a process waits for another's reconcile to end. Adds are idempotent by job id, so
 * two at once would queue a lost job once; the lock spares the second the same pages.
 */
const LOCK_WAIT_MS = 5 * MINUTE;
const LOCK_OWNER = 'reconcile-jobs';

/**
 * `reconcileJobs` holding a lock shared by every process on this Redis: boot's and the
 * restart heal's, so no two reconcile at once.
 */
export async function reconcileJobsLocked(
  locks: ScheduleLocks,
  ctx: JobsContext,
  harnessConfig: HarnessConfigTable,
  options: ReconcileOptions & {
    /** Told while another process holds the reconcile (a boot reports it, so its supervisor keeps waiting). */
    onLockWait?: () => void;
  },
): Promise<ReconcileReport> {
  const outcome = await locks.withLock(LOCK_OWNER, () => reconcileJobs(ctx, harnessConfig, options), { waitMs: LOCK_WAIT_MS, onWait: options.onLockWait });
  if (!outcome.held) throw new Error(`another process held the job reconcile for ${LOCK_WAIT_MS / MINUTE} minutes`);
  return outcome.value;
}

export interface RestartHealOptions {
  /** Serialises reconciles across the processes sharing this Redis. */
  locks: ScheduleLocks;
  /**
   * A job enqueued within this long may be between its SQLite insert and its Redis add in
   * some process (an add fails or lands within the 5 s command timeout), so a pass leaves it
   * alone and a second pass follows once the first's youngest are past it.
   */
  graceMs: number;
  /** Puts back what Redis held beside the run jobs (recurring job schedulers, publish jobs' queue entries). */
  restore(): Promise<unknown>;
  log: { info(object: object, message: string): void; warn(object: object, message: string): void };
}

export interface RestartHealer {
  /**
   * Redis was found restarted, or SQLite missed what Redis decided (`why`, logged):
   * reconcile (again, if a pass is under way).
   */
  reconcile(why: string): void;
  /** Stops waiting and retrying; a pass under way ends with its current step. */
  close(): void;
}

/**
 * Heals what a restarted Redis forgot while the service keeps serving: the run jobs it lost
 * are queued again from SQLite (or failed, for those that were in flight), its harness caps
 * are copied back, and what `restore` covers is put back. Boot's reconcile does the
 * same before the router serves; without this, a job lost by a crash of Redis stayed queued
 * in SQLite, and no claim found it, until the API process restarted. The same passes copy
 * claims SQLite missed while it took no writes (`reconcile`).
 */
export function redisRestartHealer(ctx: JobsContext, harnessConfig: HarnessConfigTable, options: RestartHealOptions): RestartHealer {
  const { locks, graceMs, log } = options;
  const stop = new AbortController();
  let owed = false;
  let healing = false;

  async function reconcile(pass: string, afterSeq?: number): Promise<ReconcileReport> {
    const report = await reconcileJobsLocked(locks, ctx, harnessConfig, { exclusive: false, graceMs, afterSeq });
    if (report.updated + report.requeued + report.lost > 0) log.info({ ...report, pass }, 'reconciled jobs with Redis while serving');
    return report;
  }

  /** Passes until none is owed; the flag drops in the same turn as the last check, so no restart slips between. */
  async function heal(): Promise<void> {
    healing = true;
    while (owed && !stop.signal.aborted) {
      owed = false;
      try {
        await options.restore();
        const { firstTooYoung } = await reconcile('first');
        if (firstTooYoung === null) continue;
        // Those left alone, and every job queued after the first of them, once past the grace.
        await sleep(graceMs, undefined, { signal: stop.signal, ref: false });
        await reconcile('after the grace', firstTooYoung - 1);
      } catch (error) {
        if (stop.signal.aborted) break;
        log.warn({ err: error }, `reconciling jobs with Redis failed; retrying in ${RETRY_MS / SECOND} s`);
        owed = true;
        await sleep(RETRY_MS, undefined, { signal: stop.signal, ref: false }).catch(() => undefined);
      }
    }
    healing = false;
  }

  return {
    reconcile(why) {
      log.warn({}, why);
      owed = true;
      if (!healing) void heal();
    },
    close: () => stop.abort(),
  };
}
