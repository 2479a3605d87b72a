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
 * Answers 200 and writes one JSON object per line as `lines` yields them, each flushed at
 * once; `null` writes a bare newline (a heartbeat). Stops reading when the client goes away.
 */
export async function streamNdjson(reply: FastifyReply, lines: AsyncGenerator<object | null>): Promise<void> {
  const out = hijackReply(reply);
  out.writeHead(200, NDJSON_HEADERS);
  let gone = false;
  out.on('close', () => {
    gone = true;
  });
  try {
    for await (const line of lines) {
      if (gone) break;
      out.write(line === null ? '\n' : `${JSON.stringify(line)}\n`);
    }
  } catch (error) {
    // The status line is gone already; the stream simply ends.
    reply.log.warn({ err: error }, 'NDJSON stream failed');
  } finally {
    await lines.return(undefined);
    out.end();
  }
}
