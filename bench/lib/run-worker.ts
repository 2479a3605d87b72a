import { Worker } from 'node:worker_threads';
import { SERVICE_TOKEN } from './claim-app.js';
import type { DispatchInput, DispatchOutput } from './dispatch-worker.js';

/** Runs a benchmark worker thread (a module under bench/lib) on `input` and answers the one message it posts. */
export function runWorker<Input, Output>(module: string, input: Input): Promise<Output> {
  return new Promise<Output>((done, fail) => {
    const worker = new Worker(new URL(`./${module}.js`, import.meta.url), { workerData: input });
    worker.once('message', done);
    worker.once('error', fail);
  });
}

export type DispatchOptions = Partial<Pick<DispatchInput, 'limit' | 'path' | 'warmup' | 'interleave'>>;

/**
 * `dispatchers` concurrent keep-alive loops on a worker thread, posting to `path` (default
 * `/jobs/next`) until 204 or `limit` answers (default: no limit), after `warmup` untimed
 * answers on the same sockets; with `interleave`, alternating with a second target.
 */
export function runDispatchers(base: string, dispatchers: number, { limit = Number.MAX_SAFE_INTEGER, ...rest }: DispatchOptions = {}): Promise<DispatchOutput> {
  return runWorker<DispatchInput, DispatchOutput>('dispatch-worker', { base, token: SERVICE_TOKEN, dispatchers, limit, ...rest });
}
