import type { Redis } from 'ioredis';
import { HttpError } from '../errors.js';

/** One Redis stream entry: its id and its flat field/value list. */
export type StreamEntry = [id: string, fields: string[]];

/** What a follower needs from a tail: the next entries of one stream after an id. */
export interface StreamReader {
  /**
   * Entries of `key` after `afterId` (`0-0` for all), waiting up to `timeoutMs` for some;
   * empty when none came in time or `signal` aborted. Rejects when Redis cannot be reached
   * or the tail was closed (the server is shutting down).
   */
  read(key: string, afterId: string, timeoutMs: number, signal?: AbortSignal): Promise<StreamEntry[]>;
}

/** How often, and how far apart (ms), an UNBLOCK that found no blocked read is tried again. */
const UNBLOCK_TRIES = 100;
const UNBLOCK_RETRY_MS = 5;

interface Waiter {
  key: string;
  afterId: string;
  done(entries: StreamEntry[]): void;
  fail(error: unknown): void;
}

export interface StreamTailOptions {
  /** Entries read per stream per round trip (default 500). */
  count?: number;
  /** Longest single blocking read (ms, default 2 s); new followers normally cut it short. */
  blockMs?: number;
}

/**
 * Every follower of every Redis stream in this process (job live streams, ingest progress,
 * publish lines) served by one blocking `XREAD` over all the streams they wait on, on one
 * connection, instead of a connection per follower. A follower that joins while the read
 * blocks has it interrupted (`CLIENT UNBLOCK` from `control`) so the next read includes it.
 */
export class StreamTail implements StreamReader {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly count: number;
  private readonly blockMs: number;
  private running = false;
  private closed = false;
  /** What the read in flight covers: key to the id it reads after. */
  private reading: Map<string, string> | null = null;
  /** The read an UNBLOCK is being sent for (one at a time per read). */
  private unblocking: Map<string, string> | null = null;
  /** The reader connection's CLIENT ID, asked before each read while unknown: never while a read blocks. */
  private readerClientId: number | null = null;

  constructor(private readonly reader: Redis, private readonly control: Redis, options: StreamTailOptions = {}) {
    this.count = options.count ?? 500;
    this.blockMs = options.blockMs ?? 2000;
    // A new connection gets a new client id.
    reader.on('close', () => {
      this.readerClientId = null;
    });
  }

  read(key: string, afterId: string, timeoutMs: number, signal?: AbortSignal): Promise<StreamEntry[]> {
    if (this.closed) return Promise.reject(new HttpError('queue_unavailable', 'The server is shutting down; retry in a few seconds.'));
    if (signal?.aborted) return Promise.resolve([]);
    return new Promise<StreamEntry[]>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.remove(waiter);
      };
      const waiter: Waiter = {
        key,
        afterId,
        done: (entries) => {
          settle();
          resolve(entries);
        },
        fail: (error) => {
          settle();
          reject(error);
        },
      };
      const onAbort = () => waiter.done([]);
      const timer = setTimeout(() => waiter.done([]), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      set.add(waiter);
      this.wake(key, afterId);
    });
  }

  /** Ends every wait (followers see no entries) and stops reading. */
  close(): void {
    this.closed = true;
    for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.done([]);
    this.queueUnblock();
  }

  /** How many followers wait right now. */
  get size(): number {
    let size = 0;
    for (const set of this.waiters.values()) size += set.size;
    return size;
  }

  private remove(waiter: Waiter): void {
    const set = this.waiters.get(waiter.key);
    if (!set) return;
    set.delete(waiter);
    if (set.size === 0) this.waiters.delete(waiter.key);
  }

  private wake(key: string, afterId: string): void {
    if (!this.running) {
      this.running = true;
      void this.loop();
      return;
    }
    const covered = this.reading?.get(key);
    if (this.reading && (covered === undefined || compareIds(afterId, covered) < 0)) this.queueUnblock();
  }

  /**
   * Interrupts the read in flight so the next one covers every follower. The UNBLOCK may
   * reach Redis before the read itself does (they travel on two connections); it is then
   * tried again shortly, for as long as that same read is in flight.
   */
  private queueUnblock(): void {
    const target = this.reading;
    if (!target || this.unblocking === target) return;
    this.unblocking = target;
    const attempt = async (tries: number): Promise<void> => {
      if (this.reading !== target) return;
      const id = this.readerClientId;
      const unblocked = id === null ? 0 : await this.control.client('UNBLOCK', id).catch(() => 0);
      // Best effort: when it keeps failing the read ends by itself within blockMs.
      if (unblocked === 1 || tries >= UNBLOCK_TRIES) return;
      setTimeout(() => void attempt(tries + 1), UNBLOCK_RETRY_MS);
    };
    setImmediate(() => void attempt(1));
  }

  private async loop(): Promise<void> {
    while (!this.closed && this.waiters.size > 0) {
      const reading = new Map<string, string>();
      for (const [key, set] of this.waiters) {
        let lowest: string | null = null;
        for (const waiter of set) if (lowest === null || compareIds(waiter.afterId, lowest) < 0) lowest = waiter.afterId;
        reading.set(key, lowest!);
      }
      this.reading = reading;
      let reply: Array<[string, StreamEntry[]]> | null;
      try {
        this.readerClientId ??= Number(await this.reader.client('ID'));
        reply = (await this.reader.xread('COUNT', this.count, 'BLOCK', this.blockMs, 'STREAMS', ...reading.keys(), ...reading.values())) as Array<[string, StreamEntry[]]> | null;
      } catch (error) {
        this.readerClientId = null;
        for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.fail(error);
        continue;
      } finally {
        this.reading = null;
      }
      for (const [key, entries] of reply ?? []) {
        for (const waiter of [...(this.waiters.get(key) ?? [])]) {
          const fresh = entries.filter(([id]) => compareIds(id, waiter.afterId) > 0);
          if (fresh.length > 0) waiter.done(fresh);
        }
      }
    }
    this.running = false;
  }
}

/** Orders two stream ids (`ms-seq`). */
export function compareIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}
