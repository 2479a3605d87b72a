import type { ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import type { JobRow, JobsTable } from '../db/jobs-table.js';
import { NDJSON_HEADERS, writeDrained } from '../http/ndjson-stream.js';
import { isTerminal } from '../queue/run-queue.js';
import type { StreamEntry, StreamReader } from '../redis/stream-tail.js';
import type { JobsContext } from './jobs-context.js';

/** Bytes of events one replay round trip aims for: what a follower that stops reading holds at most (about). */
const REPLAY_PAGE_BYTES = 256 * 1024;
/** Entries per replay round trip: the first page, the bounds of later ones (sized from the entries seen so far). */
const FIRST_PAGE = 8;
const MAX_PAGE = 512;

/** Entries the next page may take so that it stays near REPLAY_PAGE_BYTES, from the average entry size so far. */
function nextPageSize(entries: number, bytes: number): number {
  if (entries === 0) return FIRST_PAGE;
  return Math.max(1, Math.min(MAX_PAGE, Math.floor(REPLAY_PAGE_BYTES / Math.max(1, bytes / entries))));
}

/** Reads of a followed job's row under way, per jobs table, by job id. */
const jobReads = new WeakMap<JobsTable, Map<string, Promise<JobRow | null>>>();

/**
 * A job's row as a follower of its live stream reads it: the followers of one job share the
 * read under way rather than each queuing one for the store's few connections (a thousand
 * followers woken by one event would otherwise wait past the pool's acquire timeout).
 */
export function followedJob(jobs: JobsTable, id: string): Promise<JobRow | null> {
  const reads = jobReads.get(jobs) ?? new Map<string, Promise<JobRow | null>>();
  jobReads.set(jobs, reads);
  let read = reads.get(id);
  if (!read) {
    read = jobs.get(id).finally(() => reads.delete(id));
    reads.set(id, read);
  }
  return read;
}

export interface JobLiveOptions {
  /** A bare newline after this long without an event (ms). */
  heartbeatMs: number;
  /** A client whose socket does not drain within this long is disconnected (ms). */
  drainTimeoutMs: number;
  /** Aborts when the client goes away or the server shuts down. */
  signal: AbortSignal;
}

/**
 * `GET /jobs/{id}/live` (NDJSON): replays every event the driver relayed so far from the
 * job's capped Redis stream (so it survives a restart of this service) a page at a time,
 * waiting for the socket to drain between writes, then follows new ones through the
 * process's shared stream tail, writes a bare newline after each idle `heartbeatMs`, and
 * ends after the terminal state's marker. A client that stops reading holds at most one
 * page and is cut off after `drainTimeoutMs`.
 */
export async function followJobLive(ctx: JobsContext, redis: Redis, tail: StreamReader, id: string, res: ServerResponse, options: JobLiveOptions): Promise<void> {
  const { signal } = options;
  res.writeHead(200, NDJSON_HEADERS);
  const key = ctx.queue.keys.live(id);
  const write = (text: string) => writeDrained(res, text, options.drainTimeoutMs);

  let seen = 0;
  let seenBytes = 0;
  // Writes entries; 'end' once the terminal marker was seen, 'gone' when the client is.
  const emit = async (entries: StreamEntry[]): Promise<'more' | 'end' | 'gone'> => {
    for (const [, fields] of entries) {
      seen += 1;
      seenBytes += fields[1]?.length ?? 0;
      if (fields[0] === 'end') return 'end';
      if (fields[0] === 'e' && !(await write(`${fields[1]}\n`))) return 'gone';
    }
    return 'more';
  };

  let outcome: 'more' | 'end' | 'gone' = 'more';
  try {
    let cursor = '0-0';
    while (outcome === 'more' && !signal.aborted) {
      const page = (await redis.xrange(key, cursor === '0-0' ? '-' : `(${cursor}`, '+', 'COUNT', nextPageSize(seen, seenBytes))) as StreamEntry[];
      if (page.length === 0) break;
      outcome = await emit(page);
      cursor = page[page.length - 1]![0];
    }
    while (outcome === 'more' && !signal.aborted) {
      // A job that finished whose backlog expired has no end marker left to wait for.
      const job = await followedJob(ctx.jobs, id);
      if (!job || isTerminal(job.state)) {
        const count = nextPageSize(seen, seenBytes);
        const rest = (await redis.xrange(key, `(${cursor}`, '+', 'COUNT', count)) as StreamEntry[];
        outcome = rest.length > 0 ? await emit(rest) : 'end';
        if (rest.length > 0) cursor = rest[rest.length - 1]![0];
        if (rest.length < count) break;
        continue;
      }
      const entries = await tail.read(key, cursor, options.heartbeatMs, signal);
      if (entries.length === 0) {
        if (!signal.aborted && !(await write('\n'))) outcome = 'gone';
        continue;
      }
      outcome = await emit(entries);
      cursor = entries[entries.length - 1]![0];
    }
    if (outcome === 'gone' && !signal.aborted) ctx.log.info({ jobId: id, drainTimeoutMs: options.drainTimeoutMs }, 'live follower stopped reading; disconnected');
  } catch (error) {
    if (!signal.aborted) ctx.log.warn({ err: error, jobId: id }, 'live stream ended on a Redis error');
  } finally {
    // A client that stopped reading never takes the rest: free the socket and what it holds.
    if (outcome === 'gone') res.destroy();
    else if (!res.writableEnded) res.end();
  }
}
