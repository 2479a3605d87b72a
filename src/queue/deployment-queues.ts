import { Queue, type JobType } from 'bullmq';
import type { Redis } from 'ioredis';
import { closeWithin, reportOutages, type RedisLog } from '../redis/redis-connections.js';
import { BACKGROUND_QUEUES, RUN_QUEUE, runQueueKeys } from './queue-keys.js';
import { queuedInWait } from './run-queue.js';

/** Every BullMQ queue a deployment runs, run jobs first. */
export const DEPLOYMENT_QUEUES: readonly string[] = [RUN_QUEUE, ...Object.values(BACKGROUND_QUEUES)];

export interface QueueCounts {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  prioritized: number;
  completed: number;
  failed: number;
  paused: number;
}

export interface QueueWorker {
  queue: string;
  /** The worker connection's client name (BullMQ names it after the queue). */
  name: string;
  addr: string;
  idleSeconds: number;
}

export interface DeploymentQueues {
  /** Read-side handles on every queue, for the dashboard and the counts. */
  readonly queues: ReadonlyMap<string, Queue>;
  counts(): Promise<QueueCounts[]>;
  workers(): Promise<QueueWorker[]>;
  close(): Promise<void>;
}

/**
 * Opens a read-side `Queue` on each deployment queue over one shared connection. Nothing
 * here processes jobs: the processors are the background workers and, for run jobs, the
 * dispatchers claiming over HTTP.
 */
export function openDeploymentQueues(redis: Redis, prefix: string, log: RedisLog = { warn() {}, info() {} }): DeploymentQueues {
  const queues = new Map(DEPLOYMENT_QUEUES.map((name) => [
    name,
    name === RUN_QUEUE ? new RunQueueReader(redis, prefix) : new Queue(name, { connection: redis, prefix }),
  ] as const));
  for (const [name, queue] of queues) reportOutages(queue, `queue:${name}`, log);
  return {
    queues,
    counts: () =>
      Promise.all(
        [...queues].map(async ([name, queue]) => {
          const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed', 'paused');
          return {
            name,
            waiting: counts.waiting ?? 0,
            active: counts.active ?? 0,
            delayed: counts.delayed ?? 0,
            prioritized: counts.prioritized ?? 0,
            completed: counts.completed ?? 0,
            failed: counts.failed ?? 0,
            paused: counts.paused ?? 0,
          };
        }),
      ),
    async workers() {
      const seen = await Promise.all(
        [...queues].map(async ([name, queue]) =>
          (await queue.getWorkers()).map((client) => ({
            queue: name,
            name: client.name ?? '',
            addr: client.addr ?? '',
            idleSeconds: Number(client.idle ?? 0),
          })),
        ),
      );
      return seen.flat();
    },
    async close() {
      // The connection is the caller's; closing a Queue on a shared connection leaves it open.
      // Bounded: with Redis gone a close would wait for it.
      await Promise.all([...queues.values()].map((queue) => closeWithin(() => queue.close(), () => {})));
    },
  };
}

/**
 * BullMQ's read side of the run queue. Its wait list may still hold the entries of jobs a
 * cancel left behind (cancel-jobs.lua) until a claim drops them; BullMQ would count those as
 * waiting. Every count read through this queue (the deployment's counts, `getWaitingCount`,
 * the dashboard's) leaves them out.
 */
class RunQueueReader extends Queue {
  private readonly runKeys: ReturnType<typeof runQueueKeys>;

  constructor(private readonly redis: Redis, prefix: string) {
    super(RUN_QUEUE, { connection: redis, prefix });
    this.runKeys = runQueueKeys(prefix);
  }

  override async getJobCounts(...types: JobType[]): Promise<Record<string, number>> {
    const counts = await super.getJobCounts(...types);
    if ('waiting' in counts) counts.waiting = await queuedInWait(this.redis, this.runKeys);
    return counts;
  }
}
