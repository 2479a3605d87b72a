import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * Sends JSON the service already holds as text (pre-serialized summary cards, stored
 * events) without parsing and re-serializing it. Fastify sends strings as they are; the
 * route's response schema still documents the shape.
 */
export function sendJsonText(reply: { type(contentType: string): unknown }, text: string): FastifyReply {
  const plain = reply as unknown as FastifyReply;
  return plain.type('application/json; charset=utf-8').send(text);
}

/**
 * Sends JSON text as `chunks` yields it, each asked for only once the client has taken
 * what came before: a body as long as a table never sits in memory whole. A failure
 * part-way ends the connection (the status line has gone).
 */
export function sendJsonStream(reply: { type(contentType: string): unknown }, chunks: AsyncIterable<string>): FastifyReply {
  const plain = reply as unknown as FastifyReply;
  return plain.type('application/json; charset=utf-8').send(Readable.from(chunks, { objectMode: false }));
}
