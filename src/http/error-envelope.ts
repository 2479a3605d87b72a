import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { isStorageFull } from '../db/storage-full.js';
import { classifyStoreError } from '../db/store-errors.js';
import { badRequest, HttpError, queueUnavailable, STATUS, storageFull, storeBusy, storeUnavailable, type ErrorCode } from '../errors.js';
import { formatBytes } from './read-capped-body.js';
import { isRedisUnavailable } from '../redis/redis-connections.js';
import { MAX_PARAM_LENGTH } from '../contract/common.js';

/** The code of each client status Fastify or Node can answer on its own. */
const CODE_FOR_STATUS: Partial<Record<number, ErrorCode>> = Object.fromEntries(
  (['bad_request', 'unauthorized', 'not_found', 'request_timeout', 'conflict', 'payload_too_large', 'uri_too_long', 'unsupported_media_type', 'unprocessable', 'too_many_requests', 'headers_too_large'] as const)
    .map((code) => [STATUS[code], code]),
);

interface Envelope {
  status: number;
  code: ErrorCode;
  message: string;
}

/**
 * Renders every failure as `{ error: { code, message } }`. Server faults are logged
 * with the request id and answered without internals.
 */
async function errorEnvelope(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => sendEnvelope(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { code: 'not_found', message: `No route ${request.method} ${shortUrl(request)}.` } }),
  );
}

function sendEnvelope(thrown: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply) {
  // A Redis or PostgreSQL outage or a full disk is the client's to retry, not a server fault: 503 at once, never a hang or a 500.
  const error = thrown instanceof HttpError ? thrown : isStorageFull(thrown) ? storageFull(thrown) : storeError(thrown) ?? (isRedisUnavailable(thrown) ? queueUnavailable(thrown) : thrown);
  const { status, code, message } = envelopeOf(error, request);
  if (status >= 500 && code === 'internal') request.log.error({ err: error }, 'request failed');
  else if (status >= 500) request.log.warn({ err: error, cause: error.cause }, error.message);
  if (code === 'queue_unavailable') reply.header('retry-after', '1');
  else if (error instanceof HttpError && error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(status).send({ error: { code, message } });
}

/** The answer to an error of the PostgreSQL store (classified by origin: src/db/store-errors.ts), or null when it is none. */
function storeError(error: Error): HttpError | null {
  const found = classifyStoreError(error);
  switch (found?.kind) {
    case 'unavailable': return storeUnavailable(error);
    case 'unique': return storeBusy(error, `another write stored the same key${found.table ? ` in ${found.table}` : ''} at the same moment`);
    case 'deadlock': case 'serialization': return storeBusy(error);
    case 'bad_text': return badRequest('A text field of the request contains a NUL character (\\u0000), which the store cannot keep.');
    default: return null;
  }
}

function envelopeOf(error: FastifyError | HttpError, request: FastifyRequest): Envelope {
  if (error instanceof HttpError) return { status: error.statusCode, code: error.code, message: error.message };
  if ('validation' in error && error.validation) return { status: 400, code: 'bad_request', message: validationMessage(error) };
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 500 || status < 400) {
    return { status: 500, code: 'internal', message: `The server failed to handle this request (request id ${request.id}).` };
  }
  // A client status with no code of its own is reported as the bad request it is.
  const code = CODE_FOR_STATUS[status];
  return code ? { status, code, message: frameworkMessage(error, request) } : { status: 400, code: 'bad_request', message: error.message };
}

/** Fastify's own wording, rewritten where it does not name the bound or the value. */
function frameworkMessage(error: FastifyError, request: FastifyRequest): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `The request body is larger than the limit of ${formatBytes(request.routeOptions.bodyLimit)} for ${request.method} ${shortUrl(request)}.`;
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Content-Type ${request.headers['content-type']?.slice(0, 100) ?? '(none)'} is not accepted by ${request.method} ${shortUrl(request)}; send application/json.`;
    case 'FST_ERR_BAD_URL':
      return `The URL ${shortUrl(request)} is not valid: a path segment holds malformed percent-encoding.`;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return `A path segment of ${shortUrl(request)} is longer than the limit of ${MAX_PARAM_LENGTH} characters.`;
    default:
      return error.message;
  }
}

function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = `${error.validationContext ?? 'request'}${first.instancePath.replaceAll('/', '.')}`;
  if (first.keyword === 'required') return `${where}.${String(first.params.missingProperty)} is required.`;
  if (first.keyword === 'additionalProperties') return `${where}.${String(first.params.additionalProperty)} is not a known field.`;
  return `${where} ${first.message ?? 'is invalid'}.`;
}

const shortUrl = (request: FastifyRequest) => {
  const path = request.url.split('?')[0]!;
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
};

/**
 * Errors the router and Node's HTTP parser raise before any route or hook runs (a
 * malformed or over-long path segment, oversized headers), answered in the same envelope.
 * Both apps (the backend and the auth service) pass these to Fastify.
 */
export const envelopeServerOptions: Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler' | 'routerOptions'> = {
  routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  frameworkErrors: (error, request, reply) => void sendEnvelope(error, request, reply),
  clientErrorHandler: answerClientError,
};

const NODE_CLIENT_ERRORS: Record<string, Omit<Envelope, 'status'>> = {
  HPE_HEADER_OVERFLOW: { code: 'headers_too_large', message: 'The request headers are larger than the server accepts (16 KiB in all).' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', message: 'The request was not received in time.' },
};

/** Node's HTTP parser failed before Fastify saw a request: answer on the raw socket and close it. */
function answerClientError(error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, message } = NODE_CLIENT_ERRORS[error.code ?? ''] ?? { code: 'bad_request' as const, message: 'The request is not valid HTTP.' };
  const body = JSON.stringify({ error: { code, message } });
  const status = STATUS[code];
  // A request timed out while its body was still coming may have been answered already (a 401 sent before the body was read).
  const answered = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !answered) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

export default fp(errorEnvelope, { name: 'error-envelope', fastify: '5.x' });
