import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { CorsOrigins } from '../config.js';

export interface CrossOriginOptions {
  /** `*`: any origin (the default); otherwise the only origins whose pages may call. */
  origins: CorsOrigins;
}

/** Every method a route of this service or the auth service answers. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Lets a console served from another origin call every route: preflights answer 204 with
 * the allowed methods and whatever request headers the browser asks for (Authorization
 * among them), and every response names the allowed origin. Tokens travel in the
 * Authorization header, never in cookies, so credentials stay off.
 */
async function crossOrigin(app: FastifyInstance, { origins }: CrossOriginOptions) {
  await app.register(cors, {
    origin: origins === '*' ? '*' : origins,
    methods: METHODS,
    // allowedHeaders is left unset, so a preflight echoes Access-Control-Request-Headers.
    exposedHeaders: ['location', 'x-request-id'],
    credentials: false,
    // A browser may reuse a preflight answer for 10 minutes (seconds).
    maxAge: 600,
    // A bare OPTIONS (no Origin) gets the same 204 rather than the plugin's own text/plain
    // 400, which would be the one failure here not in the error envelope.
    strictPreflight: false,
  });
}

export default fp(crossOrigin, { name: 'cross-origin', fastify: '5.x' });
