import { isFinishedCopy, type FinishedCopy, type JobCopy, type JobsTable } from '../db/jobs-table.js';
import type { RunQueue } from '../queue/run-queue.js';
import { SECOND } from '../time.js';
import type { JobsLog } from './jobs-context.js';

/** The first retry of a refused copy waits this long (ms); each further one twice as long... */
const FIRST_RETRY_MS = 100;
/** ...up to this (ms). */
const MAX_RETRY_MS = 5 * SECOND;
/** A caller waits at most this long (ms) for its copy's write; then the copy waits with any others, retried. */
const WRITE_WAIT_MS = SECOND;
/** Copies written per retry, in one transaction. */
const RETRY_BATCH = 1000;
/**
 * Most jobs whose copy waits in memory. Past it, a newcomer is left to Redis: a finished one
 * stays listed there until a copy lands (`copyFinishedStates`), a waiting or started one is
 * copied by the next reconcile or overtaken by its outcome.
 */
const MAX_WAITING = 100_000;
/** Closing waits at most this long (ms) for a last retry. */
const CLOSE_WAIT_MS = 5 * SECOND;
/** The periodic pass copies outcomes that finished at least this long ago (ms): a younger one's copy is likely on its way. */
export const COPY_PASS_AFTER_MS = 10 * SECOND;
const COPY_PASS_PAGE = 500;

type Queue = Pick<RunQueue, 'confirmCopied' | 'uncopied' | 'states'>;

/**
 * Where every state Redis decides is copied to the store's `jobs` rows: waiting moves, a
 * driver's reports, claims' outcomes, cancels, sweeps, halts and stale-job failures. Redis
 * decides; the row is a copy, so a copy the store refuses (a restart, a failover, a full pool,
 * a deadlock) must not fail the caller, whose retry would find nothing left to do in Redis
 * and leave the row in flight for good. Instead:
 * - `copy` writes at once, and a refused copy (or one not written within a second) waits in
 *   memory and is retried with backoff (100 ms doubling to 5 s), the newest state per job
 *   winning, until the store takes it;
 *   while copies wait, newcomers join them rather than each waiting out the outage;
 * - every write moves a row forward only (`JobsTable.copyStates`), so copies landing late or
 *   out of order, from this process or another, never bring a finished job back into flight;
 * - a finished job stays listed in Redis, its state kept, until its copy is written
 *   (`RunQueue.confirmCopied`); `copyFinishedStates` copies those another process decided
 *   and could not copy before it died.
 */
export interface JobStateCopier {
  /** Copies these states; resolves once written, or once the store refused them (then they wait and are retried). Never rejects. */
  copy(copies: readonly JobCopy[]): Promise<void>;
  /** Jobs whose copy waits for the store. */
  waiting(): number;
  /** Tries what waits once more, within CLOSE_WAIT_MS, and stops retrying. */
  close(): Promise<void>;
}

const rank = (copy: JobCopy) => (isFinishedCopy(copy) ? 3 : copy.state === 'running' ? 2 : copy.state === 'starting' ? 1 : 0);

export function jobStateCopier(jobs: JobsTable, queue: Pick<Queue, 'confirmCopied'>, log: JobsLog): JobStateCopier {
  /** Copies the store refused, the newest per job, in the order they first waited. */
  const waiting = new Map<string, JobCopy>();
  let retryMs = 0;
  let timer: NodeJS.Timeout | null = null;
  let retrying: Promise<void> = Promise.resolve();
  let dropped = 0;
  let closed = false;

  async function write(copies: readonly JobCopy[]): Promise<void> {
    await jobs.copyStates(copies);
    const finished = copies.filter(isFinishedCopy).map((copy) => copy.id);
    // Unconfirmed, they stay listed in Redis, and the periodic pass confirms them.
    if (finished.length > 0) await queue.confirmCopied(finished).catch((error: unknown) => log.warn({ err: error }, 'job outcomes copied, but Redis was not told; the periodic pass tells it'));
  }

  function keep(copies: readonly JobCopy[]): void {
    for (const copy of copies) {
      const held = waiting.get(copy.id);
      if (held) {
        if (rank(copy) >= rank(held)) waiting.set(copy.id, copy);
      } else if (waiting.size < MAX_WAITING) waiting.set(copy.id, copy);
      else dropped += 1;
    }
    schedule();
  }

  function schedule(): void {
    if (timer || closed || waiting.size === 0) return;
    retryMs = Math.min(MAX_RETRY_MS, Math.max(FIRST_RETRY_MS, retryMs * 2));
    timer = setTimeout(() => {
      timer = null;
      retrying = retry();
    }, retryMs);
    timer.unref();
  }

  async function retry(): Promise<void> {
    const batch = [...waiting.values()].slice(0, RETRY_BATCH);
    try {
      await write(batch);
    } catch {
      return schedule();
    }
    // A newer copy that came meanwhile waits on.
    for (const copy of batch) if (waiting.get(copy.id) === copy) waiting.delete(copy.id);
    if (waiting.size > 0) {
      retryMs = 0;
      return schedule();
    }
    log.info({ dropped }, 'the store takes job state copies again');
    retryMs = 0;
    dropped = 0;
  }

  return {
    async copy(copies) {
      if (copies.length === 0) return;
      // An outage under way: join the copies waiting for it rather than wait it out again.
      if (waiting.size > 0 || closed) return keep(copies);
      const writing = write(copies);
      let timer: NodeJS.Timeout | undefined;
      const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(resolve, WRITE_WAIT_MS, 'slow')));
      try {
        // A store that hangs rather than refuses: the copy waits with the others, and the
        // write under way may still land, which moves nothing back.
        if ((await Promise.race([writing, slow])) === 'slow') {
          writing.catch(() => {});
          if (waiting.size === 0) log.warn({ waitedMs: WRITE_WAIT_MS }, 'the store is slow to take job state copies; they wait in memory and are retried until it takes them');
          keep(copies);
        }
      } catch (error) {
        if (waiting.size === 0) log.warn({ err: error }, 'the store refused job state copies; they wait in memory and are retried until it takes them');
        keep(copies);
      } finally {
        clearTimeout(timer);
      }
    },
    waiting: () => waiting.size,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await retrying;
      if (waiting.size > 0) {
        const left = [...waiting.values()];
        const done = await Promise.race([write(left).then(() => true, () => false), new Promise<false>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS, false).unref())]);
        if (!done) log.warn({ left: left.length }, 'job state copies not written before shutdown; outcomes stay listed in Redis for the periodic pass, the rest for the next reconcile');
        waiting.clear();
      }
    },
  };
}

/**
 * The periodic pass (run with the stale-job sweep): copies the outcomes Redis still lists as
 * not copied, those that finished more than `olderThanMs` ago, to the rows still in flight,
 * and confirms them. A process that died, or whose store writes failed until it stopped,
 * leaves its outcomes listed; this copies them. Answers how many were listed.
 */
export async function copyFinishedStates(jobs: JobsTable, queue: Queue, olderThanMs = COPY_PASS_AFTER_MS): Promise<number> {
  let listed = 0;
  for (;;) {
    const page = await queue.uncopied(olderThanMs, COPY_PASS_PAGE);
    if (page.length === 0) return listed;
    const states = await queue.states(page.map(([id]) => id));
    const copies: FinishedCopy[] = [];
    for (const [i, [id, finishedAtMs]] of page.entries()) {
      const state = states[i];
      if (state && (state.state === 'succeeded' || state.state === 'failed' || state.state === 'canceled')) {
        copies.push({ id, state: state.state, detail: state.detail || null, recordId: state.recordId || null, at: new Date(finishedAtMs).toISOString() });
      }
    }
    await jobs.copyStates(copies);
    // Those with no state left (deleted with their prefix) leave the list too.
    await queue.confirmCopied(page.map(([id]) => id));
    listed += page.length;
    if (page.length < COPY_PASS_PAGE) return listed;
  }
}
