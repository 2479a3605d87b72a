import { Piscina } from 'piscina';
import { HttpError, statsThreadFailed, statsUnavailable, storageFull, storeUnavailable, toError } from '../errors.js';
import type { StatsOutcome, StatsRead, StatsReaderInput, StatsReaders, StatsSource, StatsTask } from '../workers/read-stats.js';
import { poolFailures } from '../workers/pool-failures.js';
import { workerFile } from '../workers/worker-file.js';

/** What a read answers. */
export type StatsAnswer<K extends StatsRead> = Awaited<ReturnType<StatsReaders[K]>>;
/** A read's arguments: none for the whole-table aggregates. */
export type StatsArgs<K extends StatsRead> = Parameters<StatsReaders[K]> extends [number, infer A] ? [args: A] : [];

export interface StatsReader {
  read<K extends StatsRead>(read: K, ...args: StatsArgs<K>): Promise<StatsAnswer<K>>;
  close(): Promise<void>;
}

/** The thread ends after this long (ms) without a read, and starts again with the next. */
const IDLE_MS = 60_000;
/** A read still running after this long (ms) is stopped with its thread, so none waits forever behind it. */
const READ_TIMEOUT_MS = 30_000;

interface Waiting {
  read: StatsRead;
  /** The read and its arguments, as one key. */
  key: string;
  args: unknown;
  answer: Promise<unknown>;
  settle: { done(value: unknown): void; fail(error: Error): void };
}

/**
 * Reads over whole tables or many cells: the `GET /stats/*` reads scan the whole history (at
 * 100,000 stored runs each took 145–270 ms), the job counts of `/status` and `/metrics` every
 * in-flight job (80 ms at 100,000 queued), and a ladder's cell counts and gate evidence every
 * run of its cells (119 ms for 1,000 cells over 100,000 runs), with the HTTP event loop held
 * all the while, claims included. They run on a worker thread of their own
 * (src/workers/read-stats.ts) over a connection of its own (read-only on SQLite, a small pool
 * of its own on PostgreSQL, which `source` names), one at a time: a second scan in
 * parallel would only take a core from the API. The thread starts with the first read and
 * ends after a minute without one; a read still running after `timeoutMs` is stopped with
 * its thread and answered 503.
 *
 * A read asked for while the same read, with the same arguments, waits its turn shares it: it
 * has not started, so it sees every write committed before either was asked for. However
 * many consoles ask at once, at most one read of each kind and arguments waits.
 *
 * A thread that fails outside a read (it could not open the store, say) is handed to
 * `onError` and fails the read waiting for it with a 503; the next read starts a new thread.
 */
export function statsReader(
  source: StatsSource,
  { timeoutMs = READ_TIMEOUT_MS, onError = (error: Error) => process.emitWarning(error) }: { timeoutMs?: number; onError?: (error: Error) => void } = {},
): StatsReader {
  if (source.engine === 'sqlite' && (source.file === '' || source.file === ':memory:')) {
    throw new Error('Statistics are read over a second connection, which an in-memory store cannot have.');
  }
  const piscina = new Piscina<StatsTask, StatsOutcome>({
    filename: workerFile('read-stats'),
    workerData: { source } satisfies StatsReaderInput,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: IDLE_MS,
    // An idle thread must not park in Atomics.wait, holding the process open.
    atomics: 'disabled',
  });
  const failures = poolFailures(piscina, onError);
  /** Reads waiting for the thread, in the order first asked, one per read and arguments. */
  const waiting = new Map<string, Waiting>();
  let running = false;
  let closed = false;

  function next(): void {
    if (running) return;
    const [first] = waiting.values();
    if (!first) return;
    waiting.delete(first.key);
    running = true;
    const timeout = AbortSignal.timeout(timeoutMs);
    const what = `statistics (${first.read})`;
    const task = { read: first.read, now: Date.now(), args: first.args } satisfies StatsTask;
    failures.run((failed) => piscina.run(task, { signal: AbortSignal.any([failed, timeout]) })).then(
      (outcome) => ('storeError' in outcome ? first.settle.fail(storeErrorOf(outcome.storeError, what)) : first.settle.done(outcome.value)),
      (error: unknown) => first.settle.fail(
        failures.isPoolFailure(error) ? statsThreadFailed(what, error)
          : timeout.aborted ? statsUnavailable(what, timeoutMs / 1000, error)
            : toError(error, `reading ${what}`),
      ),
    ).finally(() => {
      running = false;
      next();
    });
  }

  return {
    read<K extends StatsRead>(read: K, ...rest: StatsArgs<K>): Promise<StatsAnswer<K>> {
      // Piscina would start a new thread for a read after its pool was destroyed.
      if (closed) return Promise.reject(new HttpError('stats_unavailable', 'The server is shutting down; retry in a few seconds.'));
      const args = rest[0] ?? null;
      const key = args === null ? read : `${read}\u0000${JSON.stringify(args)}`;
      let entry = waiting.get(key);
      if (!entry) {
        let settle!: Waiting['settle'];
        const answer = new Promise<unknown>((done, fail) => (settle = { done, fail }));
        entry = { read, key, args, answer, settle };
        waiting.set(key, entry);
        next();
      }
      return entry.answer as Promise<StatsAnswer<K>>;
    },
    close() {
      closed = true;
      return piscina.destroy();
    },
  };
}

/** The store error a read met on the thread, as the request's answer: an outage or a full disk is the client's to retry (503), anything else a fault. */
function storeErrorOf({ kind, reason, message }: Extract<StatsOutcome, { storeError: unknown }>['storeError'], what: string): Error {
  const cause = new Error(`reading ${what}: ${message} (${reason})`);
  if (kind === 'unavailable') return storeUnavailable(cause);
  if (kind === 'full') return storageFull(cause);
  return cause;
}
