import { Queue, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { StreamReader } from '../redis/stream-tail.js';
import { BACKGROUND_QUEUES, backgroundKeys } from '../queue/queue-keys.js';
import { HOUR, SECOND } from '../time.js';
import { scanAlive } from './ingest-heartbeat.js';
import type { IngestEvent, IngestReport, IngestRequest } from './ingest-scan.js';

/** Progress of one scan: a capped Redis stream, so a reader that subscribes late misses nothing. */
const progressKey = (prefix: string, jobId: string) => backgroundKeys(prefix).ingestProgress(jobId);
const PROGRESS_TTL_SECONDS = HOUR / SECOND;
const PROGRESS_MAX_LINES = 100_000;

/** The error code of a scan's closing `error` line, when it has one: the HTTP error it answers before any 200. */
export type ScanErrorCode = 'not_found' | 'catalog_unavailable' | 'ingest_interrupted' | 'ingest_refused';

/** Lines in the progress stream: the NDJSON events, then the report (never sent as NDJSON). */
export type ProgressEntry =
  | IngestEvent
  | { event: 'report'; report: IngestReport }
  | { event: 'error'; message: string; code?: ScanErrorCode };

/** BullMQ's reason for a job whose worker stopped renewing its lock more than maxStalledCount times. */
export const STALLED_REASON = 'job stalled more than allowable limit';

/** The closing line of a scan whose process stopped mid-scan, as its heartbeat or BullMQ tells. */
export const INTERRUPTED_LINE = {
  event: 'error',
  code: 'ingest_interrupted',
  message: 'The ingest scan was interrupted: the process running it stopped mid-scan. It is not re-run by itself; send the request again.',
} as const satisfies ProgressEntry;

/** Longest wait for the next lines before the follower looks at the scan's job and heartbeat (ms). */
const LOOK_EVERY_MS = 2 * SECOND;

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
 * A scan whose process died ends with INTERRUPTED_LINE within the heartbeat's TTL, not after
 * BullMQ's lock lapses; that is trusted only of a process seen beating (one started before
 * heartbeats existed never beats), else BullMQ's stalled check tells, after ~35 s.
 */
export async function* followIngest(queue: Queue<IngestRequest, IngestReport>, reader: StreamReader, prefix: string, request: IngestRequest, signal?: AbortSignal): AsyncGenerator<ProgressEntry> {
  const job = await queue.add('scan', request);
  const key = progressKey(prefix, job.id!);
  const redis = await queue.client;
  let lastId = '0-0';
  let beating = false;
  let missedBeats = 0;
  while (!signal?.aborted) {
    const entries = await reader.read(key, lastId, LOOK_EVERY_MS, signal);
    if (signal?.aborted) return;
    if (entries.length === 0) {
      const state = await job.getState();
      if (state === 'failed' || state === 'unknown') {
        const reason = state === 'failed' ? (await queue.getJob(job.id!))?.failedReason : undefined;
        if (reason === STALLED_REASON) yield INTERRUPTED_LINE;
        else yield { event: 'error', message: `The ingest scan ended without a report (${reason ?? `state ${state}`}).` };
        return;
      }
      // Two looks apart: one could fall between the job turning active and its first beat.
      const alive = state !== 'active' || (await scanAlive(redis, prefix, job.id!));
      beating ||= state === 'active' && alive;
      missedBeats = alive ? 0 : missedBeats + 1;
      if (beating && missedBeats >= 2) {
        yield INTERRUPTED_LINE;
        return;
      }
      continue;
    }
    // The scan beats before its first line: a missing beat from here on means its process died.
    if (!beating && lastId === '0-0') beating = await scanAlive(redis, prefix, job.id!);
    for (const [id, fields] of entries) {
      lastId = id;
      const entry = JSON.parse(fields[1]!) as ProgressEntry;
      yield entry;
      if (entry.event === 'report' || entry.event === 'error') return;
    }
  }
}
