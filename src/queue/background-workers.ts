import { Queue, Worker, type ConnectionOptions, type Job, type Processor, type WorkerOptions } from 'bullmq';
import type { Config } from '../config.js';
import { backgroundJobDuration, backgroundJobs } from '../metrics/process-metrics.js';
import type { Database } from '../db/open-database.js';
import { bullConnection } from '../redis/managed-redis.js';

/** What a background processor may use, in whichever process runs it. */
export interface WorkerContext {
  config: Config & { redisUrl: string };
  /** The deployment's SQLite store: worker processes share DATA_DIR with the API. */
  db: Database;
  connection: ConnectionOptions;
}

/** One background queue's processor, built per process from the context. */
export interface BackgroundProcessor {
  /** Queue name, from BACKGROUND_QUEUES in queue-keys.ts. */
  queue: string;
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
  queues: string[];
  close(): Promise<void>;
}

/**
 * Starts one BullMQ Worker per processor under the deployment's prefix. Every process that
 * calls this (the API process with RUN_WORKERS, each `npm run worker`) competes for the same
 * queues' jobs through BullMQ, which is how a deployment adds machines. Workers block on
 * Redis, so each opens its own connections.
 */
export async function startBackgroundWorkers(
  processors: readonly BackgroundProcessor[],
  context: Omit<WorkerContext, 'connection'>,
  onError: (queue: string, error: Error) => void,
): Promise<BackgroundWorkers> {
  const connection = bullConnection(context.config.redisUrl);
  const started: Array<{ worker: Worker; stop?: () => void; close?: () => Promise<void> }> = [];
  for (const entry of processors) {
    // Set before this process takes a job, so no process can start one past the bound.
    if (entry.globalConcurrency !== undefined) await setGlobalConcurrency(entry.queue, entry.globalConcurrency, connection, context.config.redisPrefix);
    const { processor, stop, close, onFailed } = entry.start({ ...context, connection });
    const worker = new Worker(entry.queue, processor, {
      ...entry.options,
      connection,
      prefix: context.config.redisPrefix,
      concurrency: entry.concurrency ?? 1,
    });
    worker.on('error', (error) => onError(entry.queue, error));
    const observe = (outcome: 'completed' | 'failed', job: Job | undefined) => {
      backgroundJobs.inc({ queue: entry.queue, outcome });
      if (job?.processedOn && job.finishedOn) backgroundJobDuration.observe({ queue: entry.queue }, (job.finishedOn - job.processedOn) / 1000);
    };
    worker.on('completed', (job) => observe('completed', job));
    worker.on('failed', (job, error) => {
      observe('failed', job);
      if (job && onFailed) onFailed(job, error).catch((failure: Error) => onError(entry.queue, failure));
    });
    started.push({ worker, ...(stop ? { stop } : {}), ...(close ? { close } : {}) });
  }
  await Promise.all(started.map(({ worker }) => worker.waitUntilReady()));
  return {
    queues: processors.map((entry) => entry.queue),
    async close() {
      for (const { stop } of started) stop?.();
      await Promise.all(started.map(({ worker }) => worker.close()));
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
