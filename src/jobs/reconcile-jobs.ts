import type { DispatchedClaim, JobCopy, JobRow } from '../db/jobs-table.js';
import { keysetPages } from '../db/keyset-pages.js';
import { runSubjectJson } from '../events/run-events.js';
import { isTerminal, type QueuedRun, type RunState } from '../queue/run-queue.js';
import { MINUTE } from '../time.js';
import type { HarnessConfigTable } from './harness-caps.js';
import { announceWaiting, recordFinished, type JobsContext } from './jobs-context.js';

const CHUNK = 1000;
const REAP_AT_ONCE = 100;
export const LOST_FROM_REDIS = 'The job was lost from Redis while in flight.';
export const REAPED = 'The service restarted while the job was in flight.';

export interface ReconcileOptions {
  /**
   * True when no other process uses this Redis and SQLite (single box, REAP_ORPHANED_JOBS).
   * Otherwise a job another process is enqueuing or claiming right now looks half done, so
   * only jobs enqueued more than `graceMs` ago are repaired.
   */
  exclusive: boolean;
  /** Default 1 minute. */
  graceMs?: number;
  /** Told after each page how many in-flight jobs are checked so far (a boot reports it to its supervisor). */
  onProgress?: (checked: number) => void;
  /** Only the jobs queued after this one (a `seq`; default: every in-flight job). */
  afterSeq?: number;
}

export interface ReconcileReport {
  /** SQLite rows brought up to the state Redis decided. */
  updated: number;
  /** Waiting jobs Redis no longer held, queued again from their SQLite record. */
  requeued: number;
  /** In-flight jobs Redis no longer held, failed. */
  lost: number;
  /** The `seq` of the first job Redis did not hold that was left alone as too young (within the grace), or null. */
  firstTooYoung: number | null;
  /** The `seq` of the last in-flight job checked (`afterSeq`, or 0, when there was none). */
  lastSeq: number;
}

/**
 * Boot: makes the store and Redis agree. Redis decides transitions, so its state wins for a
 * job it knows. Redis keeps a finished job's state until the store's row holds that outcome
 * (see job-state-copier.ts), never merely until it expires, so a row in flight whose job
 * Redis holds no state for is positive evidence that Redis lost it (no append-only file, a
 * flush) or never had it (a crash between the store's insert and the Redis add): a waiting
 * job is queued again, an in-flight one failed. Harness caps are copied from the store,
 * their source of truth, with their revisions.
 */
export async function reconcileJobs(ctx: JobsContext, harnessConfig: HarnessConfigTable, options: ReconcileOptions): Promise<ReconcileReport> {
  const settledBefore = options.exclusive ? Infinity : Date.now() - (options.graceMs ?? MINUTE);
  const settled = (row: JobRow) => Date.parse(row.enqueuedAt) < settledBefore;
  const stored = await harnessConfig.rows();
  await ctx.queue.resetCapRevisionsAbove(Math.max(0, ...stored.map((row) => row.revision)));
  const known = new Set(stored.map((row) => row.slug));
  for (const slug of (await ctx.queue.caps()).keys()) if (!known.has(slug)) await announceWaiting(ctx, await ctx.queue.setCap(slug, null, null), 'queued');
  for (const row of stored) await announceWaiting(ctx, await ctx.queue.setCap(row.slug, row.maxParallelism, row.revision), 'queued');

  const report: ReconcileReport = { updated: 0, requeued: 0, lost: 0, firstTooYoung: null, lastSeq: options.afterSeq ?? 0 };
  let checked = 0;
  const orphans = new Set(await ctx.queue.takeOrphans());
  const now = new Date().toISOString();
  for await (const { chunk, states } of inFlightBesideRedis(ctx, options.afterSeq)) {
    const requeue: QueuedRun[] = [];
    const lost: string[] = [];
    const claims: DispatchedClaim[] = [];
    const copies: JobCopy[] = [];
    for (const [j, row] of chunk.entries()) {
      const redis = states[j];
      // An orphan already left the wait list without state: whatever its age, only this repairs it.
      if (orphans.has(row.id) || (!redis && settled(row))) {
        if (row.state === 'queued' || row.state === 'pending') requeue.push(await queuedRun(ctx, row));
        else lost.push(row.id);
        continue;
      }
      if (!redis) {
        report.firstTooYoung ??= row.seq;
        continue;
      }
      // A claim is written to SQLite behind its answer: one the process died before writing
      // is copied from Redis, token included, so its driver's reports are accepted.
      const unwrittenClaim = redis.tokenHash !== null && !row.tokenHash;
      if (unwrittenClaim) {
        const at = redis.dispatchedAtMs === null ? now : new Date(redis.dispatchedAtMs).toISOString();
        claims.push({ seq: row.seq, tokenHash: redis.tokenHash!, at });
      }
      if (unwrittenClaim || redis.state !== row.state) report.updated += 1;
      if (redis.state === row.state || redis.state === 'dispatched') continue;
      copies.push(copyOf(row.id, redis, now));
    }
    // The page's copies in one statement for its claims, and one commit for its moves.
    await ctx.jobs.markAllDispatched(claims);
    await ctx.copier.copy(copies);
    const held = await ctx.queue.add(requeue);
    await ctx.jobs.markWaiting(requeue.map((run) => run.id), 'queued');
    await announceWaiting(ctx, held, 'pending');
    await ctx.jobs.markAllFinished(lost, 'failed', LOST_FROM_REDIS, now);
    report.requeued += requeue.length;
    report.lost += lost.length;
    report.lastSeq = chunk.at(-1)!.seq;
    checked += chunk.length;
    options.onProgress?.(checked);
  }
  return report;
}

/**
 * Queues the waiting jobs SQLite holds and Redis lacks once they are older than `graceMs`:
 * a process that died between a launch's SQLite commit and its Redis add left them, and no
 * claim finds them. Looks at the in-flight jobs queued after `afterSeq` only, and answers
 * where the next pass starts: just before the first job still too young (enqueued within the
 * grace, whether Redis holds it or not), else after the last one looked at. A launch whose
 * commit lands more than the grace after its rows were stamped is left to the next boot's
 * reconcile, which looks at every job in flight. Any process may run it, several at once: the add is
 * idempotent by job id, so a job two passes queue is queued once.
 */
export async function queueStrandedJobs(ctx: JobsContext, options: { afterSeq: number; graceMs: number }): Promise<{ requeued: number; nextAfterSeq: number }> {
  const settledBefore = Date.now() - options.graceMs;
  let nextAfterSeq = options.afterSeq;
  let young = false;
  let requeued = 0;
  for await (const { chunk, states } of inFlightBesideRedis(ctx, options.afterSeq)) {
    const stranded: QueuedRun[] = [];
    for (const [j, row] of chunk.entries()) {
      // Only a row still `queued` was never added: one Redis held (pending, claimed) and lost
      // is the restart healer's.
      const missing = !states[j] && row.state === 'queued';
      // The mark never passes a young row, held or not: PostgreSQL hands out `seq` at insert,
      // not at commit, so a launch committing now may hold a lower `seq` than rows seen here.
      if (Date.parse(row.enqueuedAt) >= settledBefore) young = true;
      else if (missing) stranded.push(await queuedRun(ctx, row));
      if (!young) nextAfterSeq = row.seq;
    }
    // Only the add that queued a job answers it held, so two passes never both announce it.
    await announceWaiting(ctx, await ctx.queue.add(stranded), 'pending');
    requeued += stranded.length;
  }
  return { requeued, nextAfterSeq };
}

/**
 * The in-flight rows queued after `afterSeq` (default: all), a page at a time, each beside Redis's state of
 * its job (undefined for a job Redis lacks). A page at a time, each after the last of the one
 * before: a queue of a million jobs read at once (launch bodies included) could take more
 * memory than the process has, and a boot that dies of it never comes back.
 */
async function* inFlightBesideRedis(ctx: JobsContext, afterSeq: number | undefined) {
  for await (const chunk of keysetPages<JobRow>((last) => ctx.jobs.inFlight({ after: last?.seq ?? afterSeq, limit: CHUNK }), CHUNK)) {
    yield { chunk, states: await ctx.queue.states(chunk.map((row) => row.id)) };
  }
}

/** The copy of a state Redis holds (never `dispatched`: a claim's copy is the claim writer's). */
function copyOf(id: string, redis: RunState, now: string): JobCopy {
  const { state } = redis;
  if (isTerminal(state)) return { id, state, detail: redis.detail || null, recordId: redis.recordId || null, at: now };
  if (state === 'starting' || state === 'running') return { id, state, at: now };
  return { id, state: state as 'queued' | 'pending' };
}

async function queuedRun(ctx: JobsContext, row: JobRow): Promise<QueuedRun> {
  const request = JSON.parse(row.request) as { maxRuntimeSeconds?: number | null };
  return {
    id: row.id,
    seq: row.seq,
    harness: row.harnessSlug,
    jam: row.testType === 'game-jam' ? `${row.testCaseSlug}|${row.modelId}` : '',
    request,
    subjectJson: runSubjectJson(row),
    origin: row.origin,
    maxRuntimeSeconds: request.maxRuntimeSeconds ?? (await catalogRuntime(ctx, row)),
  };
}

/** The version's run time limit; null (the harness default) when it cannot be read now: a bucket outage must not stop a re-queue. */
const catalogRuntime = (ctx: JobsContext, row: JobRow) =>
  ctx.catalog.version(row.testCaseSlug, row.testCaseVersion).then((version) => version?.maxRuntimeSeconds ?? null, () => null);

/**
 * Boot, single-box deployments (REAP_ORPHANED_JOBS): fails every job a previous process left
 * dispatched, starting or running, before the router serves. Each is announced like any
 * other failure; `onProgress` hears every thousandth.
 */
export async function reapOrphanedJobs(ctx: JobsContext, onProgress?: (reaped: number, of: number) => void): Promise<number> {
  const ids = await ctx.queue.activeIds();
  // A hundred at once, their failures recorded in one SQLite commit: one at a time, each
  // waited out its own Redis round trip and its own commit (20,000 took 6 s).
  for (let i = 0; i < ids.length; i += REAP_AT_ONCE) {
    const chunk = ids.slice(i, i + REAP_AT_ONCE);
    const results = await Promise.all(chunk.map((id) => ctx.queue.report(id, 'failed', { detail: REAPED })));
    // Anything but `applied` (the job ended meanwhile) has its copy already.
    const reaped = chunk.map((id, j) => ({ id, ...results[j]! })).filter((job) => job.outcome === 'applied');
    const failed = reaped.map(({ id, subjectJson }) => ({ id, state: 'failed' as const, detail: REAPED, recordId: null, subjectJson }));
    await recordFinished(ctx, failed, reaped.flatMap((job) => job.released), new Date().toISOString());
    if ((i + REAP_AT_ONCE) % 1000 === 0) onProgress?.(i + REAP_AT_ONCE, ids.length);
  }
  return ids.length;
}
