import pg from 'pg';

/**
 * The one test of "the PostgreSQL store cannot be reached right now", as storage-full.ts is
 * for a disk that refuses writes: such a request is the client's to retry (503
 * `store_unavailable` with Retry-After), never a server fault. The pool reconnects by itself,
 * so the next request after the server is back goes through.
 *
 * - the server stopped, restarting or not there: the socket's own codes (ECONNREFUSED,
 *   ENOENT for a unix socket whose file is gone, ECONNRESET, ...);
 * - the server ended our session or refused a new one: SQLSTATE 57P01 (admin shutdown),
 *   57P02 (crash shutdown), 57P03 (cannot connect now: starting or stopping), class 08
 *   (connection exceptions), 53300 (too many connections), 57014 (a statement past its
 *   statement_timeout);
 * - pg's own messages, which carry no code: the pool's connection timeout, a connection cut
 *   mid-query, the client-side query timeout.
 *
 * Socket codes are read on the error itself, not its causes: an upstream HTTP call that
 * failed wraps the same codes in its cause, and it is no store outage.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const SOCKET_CALLS = new Set<unknown>(['connect', 'read', 'write', 'getaddrinfo']);
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
const PG_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
];

/** The code or message that makes `error` an outage of the PostgreSQL store, or null. */
export function storeUnavailableReason(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  if (error instanceof pg.DatabaseError) {
    const { code } = error;
    return code !== undefined && (SQLSTATES.has(code) || code.startsWith('08')) ? code : null;
  }
  const { code, syscall } = error as Error & { code?: unknown; syscall?: unknown };
  if (typeof code === 'string' && SOCKET_CODES.has(code) && SOCKET_CALLS.has(syscall)) return code;
  return PG_MESSAGES.includes(error.message) ? error.message : null;
}

export function isStoreUnavailable(error: unknown): boolean {
  return storeUnavailableReason(error) !== null;
}

/**
 * PostgreSQL text refuses a NUL character (SQLSTATE 22021, or 22P05 when a conversion
 * cannot carry it), which SQLite keeps: such a write is the client's bad input, not a fault.
 * Path and query fields are refused before (src/http/request-validators.ts); this catches a
 * NUL in a body field that reaches a column of its own.
 */
export function isNulInText(error: unknown): boolean {
  return error instanceof pg.DatabaseError && (error.code === '22021' || error.code === '22P05');
}
