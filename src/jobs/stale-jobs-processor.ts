import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { jobsTable } from '../db/jobs-table.js';
import { encodeNotification, encodeRunEvent } from '../events/console-event-bus.js';
import type { BackgroundProcessor } from '../queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { RunQueue } from '../queue/run-queue.js';
import { redisOptionsFromUrl } from '../redis/managed-redis.js';
import { reportOutages } from '../redis/redis-connections.js';
import { SECOND } from '../time.js';
import { copyFinishedStates, jobStateCopier } from './job-state-copier.js';
import { sweepStaleJobs, type StaleJobLimits } from './sweep-stale-jobs.js';

const SCHEDULER_ID = 'stale-job-sweep';

/** Often enough that a lease is enforced within half its length again, at most every 30 s and at least every second. */
export const sweepEveryMs = (limits: StaleJobLimits) =>
  limits.dispatchLeaseMs > 0 ? Math.min(30 * SECOND, Math.max(SECOND, limits.dispatchLeaseMs / 2)) : 30 * SECOND;

/**
 * Schedules the stale-job sweep as a BullMQ job scheduler: whichever process runs the
 * background workers picks each sweep up. Upserting is idempotent, so every API process may call it.
 */
export async function scheduleStaleJobSweep(connection: ConnectionOptions, prefix: string, limits: StaleJobLimits): Promise<void> {
  const queue = new Queue(BACKGROUND_QUEUES.staleJobs, { connection, prefix });
  try {
    await queue.upsertJobScheduler(SCHEDULER_ID, { every: sweepEveryMs(limits) }, { name: 'sweep', opts: { removeOnComplete: true, removeOnFail: 10 } });
  } finally {
    await queue.close();
  }
}

export const staleJobsProcessor: BackgroundProcessor = {
  queue: BACKGROUND_QUEUES.staleJobs,
  start({ config, store, log }) {
    const redis = new Redis(redisOptionsFromUrl(config.redisUrl));
    reportOutages(redis, 'stale-jobs', log);
    const queue = new RunQueue({ redis, prefix: config.redisPrefix, log });
    const publish = (message: string) =>
      void redis.publish(queue.keys.consoleChannel, message).catch((error: unknown) => log.warn({ err: error }, 'stale-job sweep: console event not published'));
    const jobs = jobsTable(store);
    const ctx = {
      copier: jobStateCopier(jobs, queue, log),
      queue,
      bus: { publishRun: (json: string) => publish(encodeRunEvent(json)), publishNotification: (notification: object) => publish(encodeNotification(notification)) },
    };
    const limits = { dispatchLeaseMs: config.dispatchLeaseMs, runtimeGraceMs: config.runtimeGraceMs };
    return {
      processor: async () => ({ failed: await sweepStaleJobs(ctx, limits), copied: await copyFinishedStates(jobs, queue) }),
      async close() {
        await ctx.copier.close();
        await queue.close();
        await redis.quit().catch(() => redis.disconnect());
      },
    };
  },
};
