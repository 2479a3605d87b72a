import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { JsonTooDeepError, MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

const BLANK = /^\s*$/;

/**
 * Replaces Fastify's JSON body parser with one that
 * - refuses bodies nesting deeper than MAX_JSON_DEPTH (400 naming the limit) before
 *   parsing, so nothing downstream walks a value deep enough to overflow its stack;
 * - reads an empty body as no body, so a bare POST sent with `Content-Type:
 *   application/json` reaches a route whose body is optional (a route that requires
 *   one still answers 400 naming `body`);
 * - otherwise parses as Fastify does, prototype-poisoning checks included.
 */
async function jsonBody(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (BLANK.test(text)) return done(null, undefined);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(new JsonTooDeepError(), undefined);
    parse(request, text, done);
  });
}

export default fp(jsonBody, { name: 'json-body', fastify: '5.x' });
