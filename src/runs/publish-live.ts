import type { Redis } from 'ioredis';
import { backgroundKeys } from '../queue/queue-keys.js';
import type { StreamReader } from '../redis/stream-tail.js';
import { DAY, SECOND } from '../time.js';

/** Publish live stream lines (open-points.md, Console stream). */
export type PublishLine =
  | { type: 'progress'; message: string }
  | { type: 'result'; state: 'succeeded' | 'failed'; sourceRepo?: string; playableBuild?: string; detail?: string };

/** One capped Redis stream per publish job: replayed to each follower, then followed. */
const publishLiveKey = (prefix: string, publishJobId: string) => backgroundKeys(prefix).publishLive(publishJobId);

/** Lines a publish job writes; a release writes a handful, the cap only guards a runaway. */
const STREAM_CAP = 500;
/** How long a finished job's lines stay replayable (ms); after that the job row answers alone. */
const STREAM_TTL = 7 * DAY;
export const HEARTBEAT_INTERVAL = 15 * SECOND;

export function publishLiveWriter(redis: Redis, prefix: string, publishJobId: string) {
  const key = publishLiveKey(prefix, publishJobId);
  return async (line: PublishLine) => {
    await redis.multi().xadd(key, 'MAXLEN', '~', STREAM_CAP, '*', 'line', JSON.stringify(line)).pexpire(key, STREAM_TTL).exec();
  };
}

/** Where a publish follower reads: a command connection, the shared tail, and its end signal. */
export interface PublishFollowSource {
  redis: Redis;
  tail: StreamReader;
  /** Aborts when the client goes away or the server shuts down: the follower ends. */
  signal: AbortSignal;
}

/**
 * Replays a publish job's lines, then follows them until the result line. Yields `null`
 * for each idle heartbeat interval; `settled` answers the result from the job row when the
 * stream has expired or was never written (a job that died before its first line). Ends
 * without a result when `signal` aborts, so a dead publisher's job never holds shutdown.
 */
export async function* followPublishLive(
  { redis, tail, signal }: PublishFollowSource,
  prefix: string,
  publishJobId: string,
  settled: () => Promise<PublishLine | null>,
  heartbeatMs = HEARTBEAT_INTERVAL,
): AsyncGenerator<PublishLine | null> {
  const key = publishLiveKey(prefix, publishJobId);
  let lastId = '0-0';
  const early = (await redis.exists(key)) === 0 ? await settled() : null;
  if (early) {
    yield early;
    return;
  }
  while (!signal.aborted) {
    const entries = await tail.read(key, lastId, heartbeatMs, signal);
    if (signal.aborted) return;
    if (entries.length === 0) {
      const result = await settled();
      if (result) {
        yield result;
        return;
      }
      yield null;
      continue;
    }
    for (const [id, fields] of entries) {
      lastId = id;
      const line = JSON.parse(fields[1]!) as PublishLine;
      yield line;
      if (line.type === 'result') return;
    }
  }
}
