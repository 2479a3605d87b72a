import type { Writable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { hijackReply } from './hijack-reply.js';

export const NDJSON = 'application/x-ndjson';

/** Headers of every NDJSON stream: not cached, not sniffed, not buffered by a proxy. */
export const NDJSON_HEADERS = {
  'content-type': NDJSON,
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-accel-buffering': 'no',
} as const;

/**
 * Writes `text` and, when the socket pushes back, waits until it drains: true once it did,
 * false when the client went away or did not read within `timeoutMs` (the caller ends it).
 */
export async function writeDrained(res: Writable, text: string, timeoutMs: number): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(text)) return true;
  return new Promise<boolean>((done) => {
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      done(drained);
    };
    const onDrain = () => finish(true);
    const onClose = () => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/**
 * What a tracked stream's signal aborts with when the server shuts down (see
 * `app.streams.track`); a client that goes away aborts it with no such reason.
 */
export class ServerStopping extends Error {
  constructor() {
    super('The service is stopping.');
    this.name = 'ServerStopping';
  }
}

export interface NdjsonStreamOptions {
  /** The last line written when the server shuts down while the stream is open (none by default). */
  stoppingLine?: object;
}

/**
 * Answers 200 and writes one JSON object per line as `lines` yields them, each flushed at
 * once and each waiting for the socket to drain; `null` writes a bare newline (a heartbeat).
 * Stops when the client goes away, does not read within WRITE_STALL_TIMEOUT_SECONDS, or
 * `signal` aborts (see `app.streams.track`, which aborts it at shutdown, after which
 * `stoppingLine` closes the stream).
 */
export async function streamNdjson(reply: FastifyReply, lines: AsyncGenerator<object | null>, signal: AbortSignal, options: NdjsonStreamOptions = {}): Promise<void> {
  const out = hijackReply(reply);
  out.writeHead(200, NDJSON_HEADERS);
  const stallMs = reply.server.config.writeStallTimeoutMs;
  let stalled = false;
  try {
    for await (const line of lines) {
      if (signal.aborted) break;
      if (!(await writeDrained(out, line === null ? '\n' : `${JSON.stringify(line)}\n`, stallMs))) {
        stalled = !out.destroyed;
        break;
      }
    }
  } catch (error) {
    // The status line is gone already; the stream simply ends.
    if (!signal.aborted) reply.log.warn({ err: error }, 'NDJSON stream failed');
  } finally {
    await lines.return(undefined);
    // Not waited on: the shutdown drops a client that does not take it soon after.
    if (!stalled && signal.reason instanceof ServerStopping && options.stoppingLine) out.write(`${JSON.stringify(options.stoppingLine)}\n`);
    if (stalled) out.destroy();
    else out.end();
  }
}
