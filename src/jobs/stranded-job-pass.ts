import type { JobsLog, JobsContext } from './jobs-context.js';
import { queueStrandedJobs } from './reconcile-jobs.js';

export interface StrandedJobPass {
  /** Stops the passes; answers once a pass under way has ended. */
  close(): Promise<void>;
}

/**
 * Every `graceMs`, queues the jobs a launch left `queued` in SQLite without their Redis add
 * once they are older than `graceMs` (see queueStrandedJobs), from `afterSeq` on: boot's
 * reconcile settled those before it, but left alone the ones too young then. Every API
 * process runs it, so whichever process died between a launch's two writes, another (or its
 * own next start) queues what it left.
 */
export function scheduleStrandedJobPass(ctx: JobsContext, options: { afterSeq: number; graceMs: number; log: JobsLog }): StrandedJobPass {
  const { graceMs, log } = options;
  let afterSeq = options.afterSeq;
  let closed = false;
  let failing = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout;
  const pass = async () => {
    try {
      const { requeued, nextAfterSeq } = await queueStrandedJobs(ctx, { afterSeq, graceMs });
      afterSeq = nextAfterSeq;
      failing = false;
      if (requeued > 0) log.info({ requeued }, 'queued jobs a launch left in SQLite without their Redis add');
    } catch (error) {
      // One line per outage (Redis away, the store locked), not one per period.
      if (!failing && !closed) log.warn({ err: error }, 'queuing stranded jobs failed; trying again next period');
      failing = true;
    }
  };
  const next = () => {
    timer = setTimeout(() => {
      running = pass().then(() => {
        if (!closed) next();
      });
    }, graceMs);
    timer.unref();
  };
  next();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
