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
