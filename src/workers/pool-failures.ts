import type { Piscina } from 'piscina';
import { toError } from '../errors.js';

export interface PoolFailures {
  /** A signal for one task: aborted, with the failure as its reason, if the pool fails first. */
  signal(...others: AbortSignal[]): AbortSignal;
  /** True when `error` (a task's rejection) is an abort by a failure of the pool. */
  isPoolFailure(error: unknown): boolean;
}

/**
 * Listens to a Piscina pool's `error` event, which it emits for a thread that fails outside
 * any task: its module (and, for the statistics thread, the store it opens at load) could not
 * be loaded, or it died idle. Unheard, that event ends the process; and the tasks waiting for
 * a thread are not failed by Piscina, so they would wait for threads that fail in turn. Here
 * each failure is handed to `onError` and aborts every task asked for before it; tasks asked
 * for later get a new thread and their own chance.
 */
export function poolFailures(piscina: Piscina, onError: (error: Error) => void): PoolFailures {
  let failure = new AbortController();
  const failures = new WeakSet<object>();
  piscina.on('error', (thrown: unknown) => {
    const error = toError(thrown, 'a worker thread failed');
    failures.add(error);
    failure.abort(error);
    failure = new AbortController();
    onError(error);
  });
  return {
    signal: (...others) => AbortSignal.any([failure.signal, ...others]),
    isPoolFailure: (error) => error instanceof Error && typeof error.cause === 'object' && error.cause !== null && failures.has(error.cause),
  };
}
