import type { Piscina } from 'piscina';
import { toError } from '../errors.js';

export interface PoolFailures {
  /** Runs a task (given its signal), aborted with the failure as reason if the pool fails first. */
  run<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** True when `error` (a task's rejection) is an abort by a failure of the pool. */
  isPoolFailure(error: unknown): boolean;
}

/**
 * Listens to a Piscina pool's `error` event, which it emits for a thread that fails outside
 * any task: its module (and, for the statistics thread, the store it opens at load) could not
 * be loaded, or it died idle. Unheard, that event ends the process; and the tasks waiting for
 * a thread are not failed by Piscina, so they would wait for threads that fail in turn. Here
 * each failure is handed to `onError` and aborts every task running or waiting; tasks run
 * later get a new thread and their own chance.
 */
export function poolFailures(piscina: Piscina, onError: (error: Error) => void): PoolFailures {
  // One controller per task, not one shared signal combined into each: a long-lived signal
  // would keep a reference to every task's for as long as the pool lives.
  const running = new Set<AbortController>();
  const failures = new WeakSet<object>();
  piscina.on('error', (thrown: unknown) => {
    const error = toError(thrown, 'a worker thread failed');
    failures.add(error);
    for (const controller of running) controller.abort(error);
    running.clear();
    onError(error);
  });
  return {
    run(task) {
      const controller = new AbortController();
      running.add(controller);
      return task(controller.signal).finally(() => running.delete(controller));
    },
    isPoolFailure: (error) => error instanceof Error && typeof error.cause === 'object' && error.cause !== null && failures.has(error.cause),
  };
}
