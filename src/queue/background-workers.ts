import { Worker, type ConnectionOptions, type Processor, type WorkerOptions } from 'bullmq';

/** One background queue's processor; areas register theirs at import of their own module. */
export interface BackgroundProcessor {
  /** Queue name, from BACKGROUND_QUEUES in queue-keys.ts. */
  queue: string;
  processor: Processor;
  /** Jobs this process runs at once for the queue (default 1). */
  concurrency?: number;
  /** Extra BullMQ worker options (lock duration, limiter). */
  options?: Omit<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'autorun'>;
}

const registry = new Map<string, BackgroundProcessor>();

/**
 * Adds a background queue processor. Every process that calls `startBackgroundWorkers`
 * (the API process with RUN_WORKERS, and each `npm run worker`) then competes for that
 * queue's jobs through BullMQ, which is how a deployment adds machines.
 */
export function registerBackgroundProcessor(entry: BackgroundProcessor): void {
  if (registry.has(entry.queue)) throw new Error(`A processor for queue "${entry.queue}" is already registered.`);
  registry.set(entry.queue, entry);
}

export const registeredBackgroundQueues = (): string[] => [...registry.keys()];

export interface BackgroundWorkers {
  queues: string[];
  close(): Promise<void>;
}

/**
 * Starts one BullMQ Worker per registered processor under `prefix`. Workers block on Redis,
 * so each opens its own connections from these options (`maxRetriesPerRequest: null`, as
 * BullMQ workers require).
 */
export async function startBackgroundWorkers(connection: ConnectionOptions, prefix: string, onError: (queue: string, error: Error) => void): Promise<BackgroundWorkers> {
  const workers: Worker[] = [];
  for (const entry of registry.values()) {
    const worker = new Worker(entry.queue, entry.processor, {
      ...entry.options,
      connection,
      prefix,
      concurrency: entry.concurrency ?? 1,
    });
    worker.on('error', (error) => onError(entry.queue, error));
    workers.push(worker);
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  return {
    queues: [...registry.keys()],
    close: async () => void (await Promise.all(workers.map((worker) => worker.close()))),
  };
}
