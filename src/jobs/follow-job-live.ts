import { NDJSON_HEADERS } from '../api/ndjson-stream.js';
import type { ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import { isTerminal } from '../queue/run-queue.js';
import type { JobsContext } from './jobs-context.js';

// Entries read per round trip while replaying or following.
const BATCH = 500;

/**
 * `GET /jobs/{id}/live` (NDJSON): replays every event the driver relayed so far from the
 * job's capped Redis stream (so it survives a restart of this service), then follows new
 * ones with a blocking read on a connection of its own, writes a bare newline after each
 * idle `heartbeatMs`, and ends after the terminal state's marker.
 */
export async function followJobLive(ctx: JobsContext, redis: Redis, id: string, res: ServerResponse, heartbeatMs: number): Promise<void> {
  res.writeHead(200, NDJSON_HEADERS);
  const key = ctx.queue.keys.live(id);
  const reader = redis.duplicate({ lazyConnect: true, maxRetriesPerRequest: 1 });
  reader.on('error', () => {});
  let open = true;
  res.on('close', () => {
    open = false;
    reader.disconnect();
  });

  // Writes entries; true once the terminal marker was seen.
  const emit = (entries: Array<[string, string[]]>): boolean => {
    let ended = false;
    for (const [, fields] of entries) {
      if (fields[0] === 'e') res.write(`${fields[1]}\n`);
      else if (fields[0] === 'end') ended = true;
    }
    return ended;
  };

  try {
    let lastId = '-';
    let ended = false;
    for (;;) {
      const page = await reader.xrange(key, lastId, '+', 'COUNT', BATCH);
      if (page.length === 0) break;
      ended = emit(page) || ended;
      lastId = `(${page[page.length - 1]![0]}`;
      if (page.length < BATCH) break;
    }
    let cursor = lastId === '-' ? '0' : lastId.slice(1);
    while (open && !ended) {
      // A job that finished whose backlog expired has no end marker left to wait for.
      const job = ctx.jobs.get(id);
      if (!job || isTerminal(job.state)) {
        const tail = await reader.xread('COUNT', BATCH, 'STREAMS', key, cursor);
        if (tail) emit(tail[0]![1]);
        break;
      }
      const answer = await reader.xread('COUNT', BATCH, 'BLOCK', heartbeatMs, 'STREAMS', key, cursor);
      if (!answer) {
        res.write('\n');
        continue;
      }
      const entries = answer[0]![1];
      ended = emit(entries);
      cursor = entries[entries.length - 1]![0];
    }
  } catch (error) {
    if (open) ctx.log.warn({ err: error, jobId: id }, 'live stream ended on a Redis error');
  } finally {
    reader.disconnect();
    if (!res.writableEnded) res.end();
  }
}
