import type { RunQueue } from '../queue/run-queue.js';
import { recordFinished, type JobsRecorder } from './jobs-context.js';

export interface StaleJobLimits {
  /** DISPATCH_LEASE_SECONDS in ms; 0: a dispatched job waits for its driver forever. */
  dispatchLeaseMs: number;
  /** RUNTIME_GRACE_SECONDS in ms. */
  runtimeGraceMs: number;
}

/**
 * Fails the jobs whose driver went quiet: dispatched with no driver report within the
 * dispatch lease (the claim's answer was lost, or its commit failed after the Redis move),
 * or starting/running past maxRuntimeSeconds plus the grace. A Redis script decides and
 * frees their slots, a window of the in-flight jobs per call; each is then recorded and
 * announced like any failed report, and the held jobs it released like any release.
 * Answers how many jobs it failed.
 */
export async function sweepStaleJobs(ctx: JobsRecorder & { queue: RunQueue }, limits: StaleJobLimits): Promise<number> {
  const options = {
    leaseMs: limits.dispatchLeaseMs,
    graceMs: limits.runtimeGraceMs,
    leaseDetail: `No driver reported on the job within ${limits.dispatchLeaseMs / 1000} s of its dispatch (DISPATCH_LEASE_SECONDS); its slot is freed.`,
    runtimeDetail: `The job ran past its maxRuntimeSeconds ({max} s) plus ${limits.runtimeGraceMs / 1000} s of grace (RUNTIME_GRACE_SECONDS) without a final report.`,
  };
  // Window by window from the oldest claim, each recorded before the next is asked for.
  let failedCount = 0;
  for (let skip = 0; ;) {
    const { failed, released, last, kept } = await ctx.queue.sweepStale(options, skip);
    const now = new Date().toISOString();
    await recordFinished(ctx, failed.map((job) => ({ ...job, state: 'failed' as const, recordId: null })), released, now);
    failedCount += failed.length;
    if (last) return failedCount;
    skip = kept;
  }
}
