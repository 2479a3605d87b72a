import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { CompiledQuery } from 'kysely';
import type { BackendStore } from '../db/dialect.js';
import { jobsTable } from '../db/jobs-table.js';
import type { Database } from '../db/open-database.js';
import type { DispatchWriterInput } from '../workers/dispatch-writer.js';
import { workerFile } from '../workers/worker-file.js';
import { claimBatchWriter, STOP_WRITER, type DispatchBatch, type DispatchWriterReply } from './claim-batch-writer.js';

/**
 * Claims wait at most this long (ms) to be handed to the writer, so one commit carries many
 * and the writer wakes rarely. A read that must see them hands them over at once (`settled`),
 * so the window costs readers nothing; 2 ms cost the API's thread 5 µs more per claim, in
 * timers and messages, than 20 ms (claim-profile, one dispatcher).
 */
const FLUSH_MS = 20;
/** ...or until this many are waiting. */
const FLUSH_CLAIMS = 512;

/** A read of job state waits at most this long (ms) for this process's claims to be written. */
const READ_WAIT_MS = 1000;
/** Shutdown waits at most this long (ms) for the last claims to be written. */
const CLOSE_WAIT_MS = 10_000;
/** A writer thread that died is started again after this long (ms). */
const RESTART_MS = 1000;
/**
 * Most claims held in memory unwritten (about 200 bytes each, and a copy in the writer's
 * queue). A store that stays unwritable, a full disk say, would otherwise grow the process
 * by every claim; past this, a claim is left to Redis, which decided it anyway.
 */
const MAX_UNWRITTEN = 100_000;

/** A claim Redis decided, waiting for its row to be written. */
export interface PendingDispatch {
  seq: number;
  tokenHash: string;
  /** When Redis answered the claim, ms since the epoch (the writer formats it). */
  atMs: number;
}

/**
 * Where a recorder's batches go: the SQLite writer thread, or PostgreSQL over the store's
 * pool from this thread (its writes wait on the network, not on this thread).
 */
interface ClaimWriter {
  post(batch: DispatchBatch): void;
  /** Ends the writer once its current write returns (bounded by CLOSE_WAIT_MS). */
  stop(): Promise<void>;
}

export interface DispatchRecorder {
  /** Queues a claim's store write; the claim answers without waiting for it. */
  record(jobId: string, seq: number, tokenHash: string): void;
  /** The token hash of a claim this process made whose row is not written yet. */
  pendingTokenHash(jobId: string): string | undefined;
  /**
   * Resolves once every claim recorded so far is written (reads that must see them wait on
   * it), or after `withinMs` (default 1 s) with false: a store that stays locked delays a
   * read, never holds it.
   */
  settled(withinMs?: number): Promise<boolean>;
  /** Writes what is left, then stops the writer. */
  close(): Promise<void>;
}

/**
 * Copies claims to the store behind the claim's answer. Redis decides a claim (its run state
 * holds `dispatched` and the token's hash before the script returns), so the row is a copy,
 * as for every other transition; batching claims for up to FLUSH_MS lets one statement and
 * one commit carry many. On SQLite the writer thread (src/workers/dispatch-writer.ts) takes
 * the commit, and the log checkpoints, off the thread that answers dispatchers, over a
 * second connection to `db`, the store's file; on PostgreSQL the batches go over the store's
 * own pool (`db` is not used). Until its row is written, `pendingTokenHash` answers for a claim
 * (a driver that reports at once is not refused); a process that dies first leaves the claim
 * in Redis, from where boot's reconcile copies it (src/jobs/reconcile-jobs.ts). The writer
 * retries a refused write with backoff, and `onError` and `onResumed` hear once each when the
 * store starts refusing and takes writes again; a writer thread that dies is started again
 * and handed every batch it had not acknowledged. While `maxUnwritten` claims wait, later ones are not held at all
 * (a driver's token is then checked against Redis), and `onDropped` hears of them once the
 * store takes writes again.
 */
export function dispatchRecorder(
  store: BackendStore,
  db: Database | undefined,
  onError: (error: unknown) => void,
  /** Sees each SQLite writer thread as it starts (tests stop one to see it replaced). */
  onWriter?: (writer: Worker) => void,
  options: {
    /** Default MAX_UNWRITTEN. */
    maxUnwritten?: number;
    /**
     * Told, once the store takes writes again, how many claims were left to Redis while it
     * did not: their rows still read as waiting, until a reconcile copies them from Redis.
     */
    onDropped?: (count: number) => void;
    /** Told once when the store takes the claims' writes again; its refusal went to `onError`, once too. */
    onResumed?: () => void;
  } = {},
): DispatchRecorder {
  const maxUnwritten = options.maxUnwritten ?? MAX_UNWRITTEN;
  /** Claims left to Redis since the store last took a write. */
  let dropped = 0;
  const jobs = jobsTable(store);
  const engineName = store.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  /** Every claim not yet acknowledged as written, by job id. */
  const unwritten = new Map<string, PendingDispatch>();
  let queued: Array<[string, PendingDispatch]> = [];
  /** Batches handed to the writer and not yet acknowledged. */
  const sent = new Map<number, Array<[string, PendingDispatch]>>();
  let nextBatch = 1;
  let timer: NodeJS.Timeout | null = null;
  let waiters: Array<{ upTo: number; done: () => void }> = [];
  let closing = false;
  const writer = store.engine === 'sqlite' ? sqliteWriter() : postgresWriter();

  function heard(message: DispatchWriterReply): void {
    if ('refused' in message) return onError(new Error(`${engineName} refuses claim writes (${message.refused}); retrying with backoff until it takes them`));
    const { batch, resumed } = message;
    if (resumed) options.onResumed?.();
    for (const [id, claim] of sent.get(batch) ?? []) if (unwritten.get(id) === claim) unwritten.delete(id);
    sent.delete(batch);
    if (dropped > 0) {
      options.onDropped?.(dropped);
      dropped = 0;
    }
    const oldest = oldestSent();
    const done = waiters.filter((waiter) => waiter.upTo < oldest);
    waiters = waiters.filter((waiter) => waiter.upTo >= oldest);
    for (const waiter of done) waiter.done();
  }

  /** A batch as the statement that writes it, the claims' times formatted as every stored time. */
  function statementOf(batch: number, claims: Array<[string, PendingDispatch]>): DispatchBatch {
    const rows = claims.map(([, { seq, tokenHash, atMs }]) => ({ seq, tokenHash, at: new Date(atMs).toISOString() }));
    return { batch, ...jobs.dispatchedStatement(rows) };
  }

  function sqliteWriter(): ClaimWriter {
    if (!db || db.memory) throw new Error('Claims are written by a second connection to the store\'s file, which an in-memory store cannot have.');
    const file = db.name;
    // The writer thread checkpoints the log; this connection's commits stop doing it inline.
    const autocheckpoint = db.pragma('wal_autocheckpoint', { simple: true }) as number;
    db.pragma('wal_autocheckpoint = 0');
    let thread = startThread();

    function startThread(): Worker {
      const worker = new Worker(workerFile('dispatch-writer'), { workerData: { file } satisfies DispatchWriterInput });
      worker.unref();
      worker.on('message', heard);
      worker.on('error', onError);
      onWriter?.(worker);
      worker.on('exit', () => {
        if (closing) return;
        setTimeout(() => {
          if (closing) return;
          thread = startThread();
          for (const [batch, claims] of sent) thread.postMessage(statementOf(batch, claims));
        }, RESTART_MS);
      });
      return worker;
    }

    return {
      post: (batch) => thread.postMessage(batch),
      async stop() {
        // A writer that died meanwhile (threadId -1) has nothing to stop.
        if (thread.threadId !== -1) {
          const ended = once(thread, 'exit');
          thread.postMessage(STOP_WRITER);
          // A write waiting on a lock returns within the busy timeout; past the bound, end it anyway.
          if (!(await Promise.race([ended.then(() => true), sleep(CLOSE_WAIT_MS, false, { ref: false })]))) await thread.terminate();
        }
        if (db.open) db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
      },
    };
  }

  // One statement per batch over the pool: a store that is down fails the write, which is
  // tried again with backoff until the pool reaches it once more.
  function postgresWriter(): ClaimWriter {
    const loop = claimBatchWriter(({ sql, parameters }) => store.db.executeQuery(CompiledQuery.raw(sql, [...parameters])), heard);
    return {
      post: (batch) => loop.add(batch),
      stop: async () => void (await Promise.race([loop.stop(), sleep(CLOSE_WAIT_MS, undefined, { ref: false })])),
    };
  }

  /**
   * The oldest batch not yet acknowledged (Infinity: none). Batches enter `sent` in the order
   * of their numbers, so it is the first. (A spread into Math.min read every batch on each
   * acknowledgement, 3 ms at 100,000 batches, left by a long stall of the store; past about
   * 125,000 it threw.)
   */
  function oldestSent(): number {
    return sent.keys().next().value ?? Infinity;
  }

  function handOver(): number {
    if (timer) clearTimeout(timer);
    timer = null;
    if (queued.length === 0) return nextBatch - 1;
    const batch = nextBatch++;
    sent.set(batch, queued);
    writer.post(statementOf(batch, queued));
    queued = [];
    return batch;
  }

  function written(): Promise<void> {
    const upTo = handOver();
    if (oldestSent() > upTo) return Promise.resolve();
    return new Promise((done) => waiters.push({ upTo, done }));
  }

  function settled(withinMs = READ_WAIT_MS): Promise<boolean> {
    return Promise.race([written().then(() => true), sleep(withinMs, false, { ref: false })]);
  }

  return {
    record(jobId, seq, tokenHash) {
      if (unwritten.size >= maxUnwritten) {
        if (dropped === 0) onError(new Error(`${unwritten.size} claims wait to be written to ${engineName}; later ones are left to Redis until the store takes writes again`));
        dropped += 1;
        return;
      }
      const claim = { seq, tokenHash, atMs: Date.now() };
      unwritten.set(jobId, claim);
      queued.push([jobId, claim]);
      if (queued.length >= FLUSH_CLAIMS) handOver();
      else timer ??= setTimeout(handOver, FLUSH_MS);
    },
    pendingTokenHash: (jobId) => unwritten.get(jobId)?.tokenHash,
    settled,
    async close() {
      // A store that stays unwritable must not hold shutdown: what is left is in Redis, and
      // the next boot's reconcile copies it.
      if (!(await settled(CLOSE_WAIT_MS))) onError(new Error(`claims not written to ${engineName} within ${CLOSE_WAIT_MS / 1000} s of shutdown; the next boot copies them from Redis`));
      closing = true;
      await writer.stop();
    },
  };
}
