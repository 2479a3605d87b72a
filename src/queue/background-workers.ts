import { Queue, Worker, type ConnectionOptions, type Job, type Processor, type WorkerOptions } from 'bullmq';
import type { Config } from '../config.js';
import { backgroundJobDuration, backgroundJobs } from '../metrics/process-metrics.js';
import type { BackendStore } from '../db/dialect.js';
import { bullConnection } from '../redis/managed-redis.js';
import type { BackgroundQueue } from './queue-keys.js';
import { reportOutages, settlesWithin } from '../redis/redis-connections.js';
import { SECOND } from '../time.js';

/** The logger a background processor writes to: the app's (pino) in the API process, the worker's own in `npm run worker`. */
export interface WorkerLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** How long closing waits for running jobs before it lets them go (ms); BullMQ hands a stalled job to another worker. */
export const WORKER_CLOSE_GRACE_MS = 5 * SECOND;
const REACHABLE_WITHIN_MS = 500;

/** What a background processor may use, in whichever process runs it. */
export interface WorkerContext {
  config: Config & { redisUrl: string };
  /** The deployment's store, SQLite or PostgreSQL (src/db/open-store.ts). */
  store: BackendStore;
  connection: ConnectionOptions;
  log: WorkerLog;
}

/** One background queue's processor, built per process from the context. */
export interface BackgroundProcessor {
  /** Queue name, from BACKGROUND_QUEUES in queue-keys.ts. */
  queue: BackgroundQueue;
  start(context: WorkerContext): {
    processor: Processor;
    /** Called first on shutdown, before the worker waits for its active jobs: ends long jobs early. */
    stop?(): void;
    close?(): Promise<void>;
    /** A job of this queue failed, also when its processor never ran (a job stalled past `maxStalledCount`). */
    onFailed?(job: Job, error: Error): Promise<void>;
  };
  /** Jobs this process runs at once for the queue (default 1). */
  concurrency?: number;
  /** Jobs the whole deployment runs at once for the queue, across every process (BullMQ global concurrency); unset means no bound. */
  globalConcurrency?: number;
  /** Extra BullMQ worker options (lock duration, limiter). */
  options?: Omit<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'autorun'>;
}

export interface BackgroundWorkers {
  /** The queues this process runs workers for: those of `processors` that WORKER_QUEUES lists. */
  queues: BackgroundQueue[];
  close(): Promise<void>;
}

/**
 * Starts one BullMQ Worker per processor whose queue WORKER_QUEUES (`config.workerQueues`)
 * lists, under the deployment's prefix; the other queues' jobs wait for a process that
 * lists them. Every process that calls this (the API process with RUN_WORKERS, each
 * `npm run worker`) competes through BullMQ for the jobs of the queues it lists. Workers
 * block on Redis, so each opens its own connections, which wait out a Redis outage and
 * resume by themselves; each outage is logged once. Closing waits at most `graceMs` for
 * running jobs.
 */
export async function startBackgroundWorkers(
  processors: readonly BackgroundProcessor[],
  shared: Omit<WorkerContext, 'connection'>,
  graceMs = WORKER_CLOSE_GRACE_MS,
): Promise<BackgroundWorkers> {
  const connection = bullConnection(shared.config.redisUrl);
  const context: WorkerContext = { ...shared, connection };
  const running = processors.filter((entry) => context.config.workerQueues.includes(entry.queue));
  // Every processor starts before any worker takes a job: one that cannot start fails the
  // whole set, and what the others opened is closed.
  const begun: Array<{ entry: BackgroundProcessor } & ReturnType<BackgroundProcessor['start']>> = [];
  try {
    for (const entry of running) begun.push({ entry, ...entry.start(context) });
  } catch (error) {
    await Promise.all(begun.map(({ close }) => close?.()));
    throw error;
  }
  const started: Array<{ worker: Worker; stop?: () => void; close?: () => Promise<void> }> = [];
  for (const { entry, processor, stop, close, onFailed } of begun) {
    // Set before this process takes a job, so no process can start one past the bound.
    if (entry.globalConcurrency !== undefined) await setGlobalConcurrency(entry.queue, entry.globalConcurrency, connection, context.config.redisPrefix);
    const worker = new Worker(entry.queue, processor, {
      ...entry.options,
      connection,
      prefix: context.config.redisPrefix,
      concurrency: entry.concurrency ?? 1,
    });
    reportOutages(worker, `worker:${entry.queue}`, context.log);
    const observe = (outcome: 'completed' | 'failed', job: Job | undefined) => {
      backgroundJobs.inc({ queue: entry.queue, outcome });
      if (job?.processedOn && job.finishedOn) backgroundJobDuration.observe({ queue: entry.queue }, (job.finishedOn - job.processedOn) / 1000);
    };
    worker.on('completed', (job) => observe('completed', job));
    worker.on('failed', (job, error) => {
      observe('failed', job);
      context.log.warn({ queue: entry.queue, jobId: job?.id, err: error }, 'background job failed');
      if (job && onFailed) onFailed(job, error).catch((failure: Error) => context.log.error({ queue: entry.queue, err: failure }, 'background job failure handler failed'));
    });
    started.push({ worker, ...(stop ? { stop } : {}), ...(close ? { close } : {}) });
  }
  await Promise.all(started.map(({ worker }) => worker.waitUntilReady()));
  return {
    queues: running.map((entry) => entry.queue),
    async close() {
      // Running jobs that can stop early are asked to (probes); the rest get the grace period.
      for (const { stop } of started) stop?.();
      // A running job cannot record its end without Redis: with Redis gone there is nothing to wait for.
      const reachable = await settlesWithin(async () => {
        if ((await started[0]?.worker.client)?.status !== 'ready') throw new Error('Redis is away');
      }, REACHABLE_WITHIN_MS);
      const finished = settlesWithin(() => Promise.all(started.map(({ worker }) => worker.close())), reachable ? graceMs : 0);
      if (!(await finished)) {
        context.log.warn({ graceMs }, 'background jobs still running at close; leaving them to be retried elsewhere');
        // Their connections go; the jobs' locks lapse and BullMQ treats them as stalled.
        for (const { worker } of started) void worker.disconnect().catch(() => {});
      }
      await Promise.all(started.map(({ close }) => close?.()));
    },
  };
}

async function setGlobalConcurrency(name: string, concurrency: number, connection: ConnectionOptions, prefix: string): Promise<void> {
  const queue = new Queue(name, { connection, prefix });
  try {
    await queue.setGlobalConcurrency(concurrency);
  } finally {
    await queue.close();
  }
}
