import type { Redis } from 'ioredis';
import { backgroundKeys } from '../queue/queue-keys.js';
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

/**
 * Replays a publish job's lines, then follows them until the result line. Yields `null`
 * for each idle heartbeat interval; `settled` answers the result from the job row when the
 * stream has expired or was never written (a job that died before its first line).
 */
export async function* followPublishLive(
  reader: Redis,
  prefix: string,
  publishJobId: string,
  settled: () => PublishLine | null,
  heartbeatMs = HEARTBEAT_INTERVAL,
): AsyncGenerator<PublishLine | null> {
  const key = publishLiveKey(prefix, publishJobId);
  let lastId = '0-0';
  const early = (await reader.exists(key)) === 0 ? settled() : null;
  if (early) {
    yield early;
    return;
  }
  for (;;) {
    const reply = (await reader.xread('COUNT', 100, 'BLOCK', heartbeatMs, 'STREAMS', key, lastId)) as Array<[string, Array<[string, string[]]>]> | null;
    if (!reply) {
      const result = settled();
      if (result) {
        yield result;
        return;
      }
      yield null;
      continue;
    }
    for (const [id, fields] of reply[0]![1]) {
      lastId = id;
      const line = JSON.parse(fields[1]!) as PublishLine;
      yield line;
      if (line.type === 'result') return;
    }
  }
}
