import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError, queueUnavailable, type ErrorCode } from '../../errors.js';
import { isRedisUnavailable } from '../../redis/redis-connections.js';

const CODE_FOR_STATUS: Partial<Record<number, ErrorCode>> = {
  401: 'unauthorized',
  404: 'not_found',
  409: 'conflict',
  422: 'unprocessable',
};

/**
 * Renders every failure as `{ error: { code, message } }`. Server faults are logged
 * with the request id and answered without internals.
 */
async function errorEnvelope(app: FastifyInstance) {
  app.setErrorHandler((thrown: FastifyError | HttpError, request, reply) => {
    // A Redis outage is the client's to retry, not a server fault: 503 at once, never a hang or a 500.
    const error = !(thrown instanceof HttpError) && isRedisUnavailable(thrown) ? queueUnavailable(thrown) : thrown;
    if (error instanceof HttpError) {
      if (error.code === 'queue_unavailable') reply.header('retry-after', '1');
      if (error.statusCode >= 500) request.log.warn({ err: error, cause: error.cause }, error.message);
      return reply.code(error.statusCode).send({ error: { code: error.code, message: error.message } });
    }
    const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if ('validation' in error && error.validation) {
      return reply.code(400).send({ error: { code: 'bad_request', message: validationMessage(error) } });
    }
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, wrong media type, body too large) fold into 400.
      const code = CODE_FOR_STATUS[status] ?? 'bad_request';
      return reply.code(code === 'bad_request' ? 400 : status).send({ error: { code, message: error.message } });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({
      error: { code: 'internal', message: `The server failed to handle this request (request id ${request.id}).` },
    });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { code: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}.` } }),
  );
}

function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = `${error.validationContext ?? 'request'}${first.instancePath.replaceAll('/', '.')}`;
  if (first.keyword === 'required') return `${where}.${String(first.params.missingProperty)} is required.`;
  if (first.keyword === 'additionalProperties') return `${where}.${String(first.params.additionalProperty)} is not a known field.`;
  return `${where} ${first.message ?? 'is invalid'}.`;
}

export default fp(errorEnvelope, { name: 'error-envelope', fastify: '5.x' });
