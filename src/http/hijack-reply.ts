import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Takes the raw response over for a stream, carrying the headers hooks already set on the
 * reply (the cross-origin ones among them): a hijacked reply never sends those itself, and
 * a browser on another origin drops a stream that lacks them.
 */
export function hijackReply(reply: FastifyReply): ServerResponse {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
  return reply.raw;
}
