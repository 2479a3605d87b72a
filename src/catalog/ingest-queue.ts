import { Queue, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { StreamReader } from '../redis/stream-tail.js';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { HOUR, SECOND } from '../time.js';
import type { IngestEvent, IngestReport, IngestRequest } from './ingest-scan.js';


/** Progress of one scan: a capped Redis stream, so a reader that subscribes late misses nothing. */
const progressKey = (prefix: string, jobId: string) => `${prefix}:ingest-progress:${jobId}`;
const PROGRESS_TTL_SECONDS = HOUR / SECOND;
const PROGRESS_MAX_LINES = 100_000;

/** Lines in the progress stream: the NDJSON events, then the report (never sent as NDJSON). */
export type ProgressEntry =
  | IngestEvent
  | { event: 'report'; report: IngestReport }
  | { event: 'error'; message: string; code?: 'not_found' | 'catalog_unavailable' };

export interface IngestQueueOptions {
  connection: ConnectionOptions;
  prefix: string;
}

export function createIngestQueue({ connection, prefix }: IngestQueueOptions) {
  return new Queue<IngestRequest, IngestReport>(BACKGROUND_QUEUES.ingest, {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: { age: HOUR / SECOND }, removeOnFail: { age: 24 * HOUR / SECOND }, attempts: 1 },
  });
}

/** Appends one progress line for the scan `jobId`; the stream expires an hour after its last line. */
export async function writeIngestProgress(redis: Redis, prefix: string, jobId: string, entry: ProgressEntry): Promise<void> {
  const key = progressKey(prefix, jobId);
  await redis.multi().xadd(key, 'MAXLEN', '~', PROGRESS_MAX_LINES, '*', 'line', JSON.stringify(entry)).expire(key, PROGRESS_TTL_SECONDS).exec();
}

/**
 * Queues a scan and yields its progress entries as they are written, ending after the
 * closing `report` or `error`, or when `signal` aborts (the client left, the server closes).
 */
export async function* followIngest(queue: Queue<IngestRequest, IngestReport>, reader: StreamReader, prefix: string, request: IngestRequest, signal?: AbortSignal): AsyncGenerator<ProgressEntry> {
  const job = await queue.add('scan', request);
  const key = progressKey(prefix, job.id!);
  let lastId = '0-0';
  while (!signal?.aborted) {
    const entries = await reader.read(key, lastId, 15 * SECOND, signal);
    if (signal?.aborted) return;
    if (entries.length === 0) {
      const state = await job.getState();
      if (state === 'failed' || state === 'unknown') {
        const reason = state === 'failed' ? (await queue.getJob(job.id!))?.failedReason : undefined;
        yield { event: 'error', message: `The ingest scan ended without a report (${reason ?? `state ${state}`}).` };
        return;
      }
      continue;
    }
    for (const [id, fields] of entries) {
      lastId = id;
      const entry = JSON.parse(fields[1]!) as ProgressEntry;
      yield entry;
      if (entry.event === 'report' || entry.event === 'error') return;
    }
  }
}
