/**
 * Every HTTP error the service answers, in one place. Services throw these; the
 * error handler in src/http/error-envelope.ts renders them as
 * `{ error: { code, message } }`.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'unprocessable'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'request_timeout'
  | 'uri_too_long'
  | 'too_many_requests'
  | 'headers_too_large'
  | 'internal'
  | 'auth_unavailable'
  | 'store_not_ready'
  | 'catalog_unavailable'
  | 'router_key_missing'
  | 'upstream_unavailable'
  | 'queue_unavailable'
  | 'stats_unavailable'
  | 'storage_full'
  | 'store_unavailable'
  | 'store_busy'
  | 'auth_store_unavailable'
  | 'too_many_streams'
  | 'blob_store_unavailable'
  | 'ingest_interrupted'
  | 'snapshot_busy'
  | 'ingest_refused'
  | 'shutting_down';

export const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unprocessable: 422,
  too_many_requests: 429,
  headers_too_large: 431,
  internal: 500,
  auth_unavailable: 502,
  upstream_unavailable: 502,
  store_not_ready: 503,
  catalog_unavailable: 503,
  router_key_missing: 503,
  queue_unavailable: 503,
  stats_unavailable: 503,
  storage_full: 503,
  store_unavailable: 503,
  store_busy: 503,
  auth_store_unavailable: 503,
  too_many_streams: 503,
  blob_store_unavailable: 503,
  ingest_interrupted: 503,
  snapshot_busy: 503,
  ingest_refused: 409,
  shutting_down: 503,
};

export class HttpError extends Error {
  readonly statusCode: number;
  /** Set on 429s and some 503s: seconds until the caller may try again (the Retry-After header). */
  retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HttpError';
    this.statusCode = STATUS[code];
  }
}

export const badRequest = (message: string) => new HttpError('bad_request', message);
export const unauthorized = (message = 'A valid bearer token is required.') =>
  new HttpError('unauthorized', message);
/** An account that may not do this (an operator action, OPERATOR_ACCOUNTS). */
export const forbidden = (message: string) => new HttpError('forbidden', message);
export const notFound = (message: string) => new HttpError('not_found', message);
export const methodNotAllowed = (message: string) => new HttpError('method_not_allowed', message);
export const conflict = (message: string) => new HttpError('conflict', message);
export const unprocessable = (message: string) => new HttpError('unprocessable', message);
export const payloadTooLarge = (message: string) => new HttpError('payload_too_large', message);
export const unsupportedMediaType = (message: string) => new HttpError('unsupported_media_type', message);
/** `retryAfterSeconds` is also sent as the `Retry-After` header. */
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  Object.assign(new HttpError('too_many_requests', message), { retryAfterSeconds });
/** This process holds as many open streams as it may; `retryAfterSeconds` is also sent as `Retry-After`. */
export const tooManyStreams = (message: string, retryAfterSeconds: number) =>
  Object.assign(new HttpError('too_many_streams', message), { retryAfterSeconds });
export const authUnavailable = (cause: unknown) =>
  new HttpError('auth_unavailable', 'The auth service could not be reached.', { cause });
export const upstreamUnavailable = (message: string, cause?: unknown) =>
  new HttpError('upstream_unavailable', message, { cause });
/** Redis, which holds the job queue, the live streams and the console channel, cannot be reached. */
export const queueUnavailable = (cause?: unknown) =>
  new HttpError('queue_unavailable', 'The job queue (Redis) is unavailable right now; retry in a few seconds.', { cause });
/** A whole-table aggregate did not finish in time on the statistics thread (its code also answers reads after it closed). */
export const statsUnavailable = (what: string, seconds: number, cause?: unknown) =>
  new HttpError('stats_unavailable', `Reading ${what} took longer than ${seconds} s and was stopped; retry later.`, { cause });
/** The statistics thread could not start or died (the store could not be opened from it, say). */
export const statsThreadFailed = (what: string, cause: unknown) =>
  new HttpError('stats_unavailable', `Reading ${what} failed: the statistics thread could not read the store; retry later.`, { cause });
/** How long (s) a write refused by a full disk tells its caller to wait (Retry-After). */
export const STORAGE_FULL_RETRY_SECONDS = 30;
/** The disk refused a write (src/db/storage-full.ts): nothing was stored; the same request may be sent again later. */
export const storageFull = (
  cause?: unknown,
  message = `The store cannot take writes right now (its disk is full or failing); nothing was stored. Retry in ${STORAGE_FULL_RETRY_SECONDS} s.`,
) => Object.assign(new HttpError('storage_full', message, { cause }), { retryAfterSeconds: STORAGE_FULL_RETRY_SECONDS });
/** How long (s) a request that found the PostgreSQL store unreachable tells its caller to wait (Retry-After). */
export const STORE_UNAVAILABLE_RETRY_SECONDS = 2;
/** The PostgreSQL store could not be reached (src/db/store-errors.ts); the pool reconnects by itself. */
export const storeUnavailable = (
  cause?: unknown,
  message = `The store (PostgreSQL) cannot be reached right now; retry in ${STORE_UNAVAILABLE_RETRY_SECONDS} s.`,
) => Object.assign(new HttpError('store_unavailable', message, { cause }), { retryAfterSeconds: STORE_UNAVAILABLE_RETRY_SECONDS });
/** How long (s) a write that lost a race in the store tells its caller to wait (Retry-After). */
export const STORE_BUSY_RETRY_SECONDS = 1;
/**
 * A write lost a race in the PostgreSQL store every time it was tried (a deadlock or
 * serialization failure), or met a unique key another write took at the same moment where
 * the route has no 409 of its own: nothing was stored, and the same request sent again
 * finds the other write done.
 */
export const storeBusy = (cause?: unknown, what = 'another write raced it') =>
  Object.assign(
    new HttpError('store_busy', `The store could not complete this write because ${what}; nothing was stored. Retry in ${STORE_BUSY_RETRY_SECONDS} s.`, { cause }),
    { retryAfterSeconds: STORE_BUSY_RETRY_SECONDS },
  );
/** The auth service answered 503 (its own store cannot be reached, say): the caller retries after `retryAfterSeconds`, which the auth service's Retry-After gave. */
export const authStoreUnavailable = (retryAfterSeconds: number, cause?: unknown) =>
  Object.assign(
    new HttpError('auth_store_unavailable', `The auth service cannot check accounts right now (its store is unavailable); retry in ${retryAfterSeconds} s.`, { cause }),
    { retryAfterSeconds },
  );
/** How long (s) a request refused by an unreachable blob store tells its caller to wait (Retry-After). */
export const BLOB_STORE_RETRY_SECONDS = 5;
/** The bucket (BLOB_STORE_URL) did not answer in time or refused the connection: nothing was read or written. */
export const blobStoreUnavailable = (location: string, cause?: unknown) =>
  Object.assign(
    new HttpError('blob_store_unavailable', `The file store ${location} cannot be reached right now; nothing was read or written. Retry in ${BLOB_STORE_RETRY_SECONDS} s.`, { cause }),
    { retryAfterSeconds: BLOB_STORE_RETRY_SECONDS },
  );
/**
 * A failure that says nothing about the data, only that a store could not answer now (any
 * 503: the bucket, PostgreSQL, a full disk): a reader that would answer "absent" for a failed
 * read must pass these on instead, so an outage is never reported as "not ingested".
 */
export const isOutage = (error: unknown): error is HttpError => error instanceof HttpError && error.statusCode === 503;
/**
 * How long (s) a caller whose ingest scan was interrupted is told to wait (Retry-After): by
 * then BullMQ has failed the dead scan (its 30 s lock lapsed), so a retry starts at once. One
 * sent sooner is not refused; it waits in the queue for that.
 */
export const INGEST_INTERRUPTED_RETRY_SECONDS = 30;
/** The process running an ingest scan stopped mid-scan (killed, crashed); nothing re-runs it. */
export const ingestInterrupted = (message: string) =>
  Object.assign(new HttpError('ingest_interrupted', message), { retryAfterSeconds: INGEST_INTERRUPTED_RETRY_SECONDS });
/** How long (s) a refresh refused by another process's running refresh tells its caller to wait (Retry-After). */
export const SNAPSHOT_BUSY_RETRY_SECONDS = 10;
/** Another process holds the deployment's snapshot lock past the short wait a request is given. */
export const snapshotBusy = (message: string) =>
  Object.assign(new HttpError('snapshot_busy', message), { retryAfterSeconds: SNAPSHOT_BUSY_RETRY_SECONDS });
/** How long (s) a request that reached a stopping API is told to wait (Retry-After): a balancer has moved on by then. */
export const SHUTTING_DOWN_RETRY_SECONDS = 1;
/** The request arrived on an open socket after this API process began to close; nothing was done. */
export const shuttingDown = () =>
  Object.assign(
    new HttpError('shutting_down', `This API process is shutting down and did nothing with the request; send it to another one, or again in ${SHUTTING_DOWN_RETRY_SECONDS} s.`),
    { retryAfterSeconds: SHUTTING_DOWN_RETRY_SECONDS },
  );
export const routerKeyMissing = () =>
  new HttpError('router_key_missing', 'ROUTER_API_KEY is not configured on this deployment.');

/** Turns anything thrown across a boundary (worker thread, child process, script) into an Error. */
export function toError(value: unknown, context?: string): Error {
  if (value instanceof Error) return context ? new Error(`${context}: ${value.message}`, { cause: value }) : value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return new Error(context ? `${context}: ${text}` : text, { cause: value });
}
