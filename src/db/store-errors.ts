import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

/**
 * The one classifier of the PostgreSQL store's errors, by origin: an error is the store's when
 * the server raised it (a `pg.DatabaseError`) or when it came out of a pool built by
 * src/db/pool-policy.ts, which marks every error its connections and its queue raise. A socket
 * error that did not (a Redis connection refused, an upstream HTTP call) is never the store's,
 * however alike its message reads, and the Redis classifier leaves the store's alone.
 *
 * What a store error is, for the caller:
 * - `unavailable`: the server cannot be reached or stopped answering; 503 `store_unavailable`
 *   with Retry-After, and the pool reconnects by itself. The server stopped, restarting or not
 *   there (ECONNREFUSED, ENOENT for a unix socket whose file is gone, ECONNRESET, ...); the
 *   server ended our session or refused a new one (57P01 admin shutdown, 57P02 crash shutdown,
 *   57P03 cannot connect now, class 08, 53300 too many connections, any error at severity
 *   FATAL, such as 55000 for a database not accepting connections); a statement past its
 *   statement_timeout (57014) or lock_timeout (55P03); pg's own messages, which carry no code
 *   (a connection not opened in time, cut mid-query, a query with no answer in time, the
 *   pool's queue full).
 * - `full`: the server's disk is full (53100): 503 `storage_full` (src/db/storage-full.ts).
 * - `unique`: a unique violation no route turned into a 409 of its own (23505, or SQLite's
 *   SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY): 503 `store_busy`, since a
 *   retry runs the route's own check, which sees the other write.
 * - `deadlock` (40P01) and `serialization` (40001): the transaction lost a race and is worth
 *   running again (writeTransaction does, a few times).
 * - `bad_text`: text PostgreSQL cannot keep, a NUL (22021, or 22P05 when a conversion cannot
 *   carry it), which SQLite keeps: the client's bad input.
 */
export type StoreErrorKind = 'unavailable' | 'full' | 'unique' | 'deadlock' | 'serialization' | 'bad_text';

export interface StoreErrorClass {
  kind: StoreErrorKind;
  /** The SQLSTATE, socket code, SQLite code or pg message that decided it. */
  reason: string;
  /** The table the server named, when it did (PostgreSQL's unique violations do). */
  table?: string;
}

const SQLITE_UNIQUE = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

const FROM_STORE = Symbol('fromStore');

/** Marks `error` as raised by the store's pool or connection (pool-policy.ts calls it on everything they raise). */
export function markFromStore<T>(error: T): T {
  if (error instanceof Error && !(FROM_STORE in error)) Object.defineProperty(error, FROM_STORE, { value: true });
  return error;
}

/** True when `error`, or an error in its cause chain, came from the store (see markFromStore). */
export function isFromStore(error: unknown): boolean {
  for (let seen = error, depth = 0; seen instanceof Error && depth < 8; seen = seen.cause, depth += 1) {
    if (FROM_STORE in seen || seen instanceof pg.DatabaseError) return true;
  }
  return false;
}

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const SOCKET_CALLS = new Set<unknown>(['connect', 'read', 'write', 'getaddrinfo']);
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '55P03']);
const SQLSTATE_KINDS: Record<string, StoreErrorKind> = { 53100: 'full', 23505: 'unique', '40P01': 'deadlock', 40001: 'serialization', 22021: 'bad_text', '22P05': 'bad_text' };
/** The message pool-policy.ts's bounded queue refuses a query with. */
export const POOL_QUEUE_FULL = 'the pool\'s queue of waiting queries is full';
const PG_MESSAGES = new Set([
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Query read timeout',
  // The client's own connect timeout (connectionTimeoutMillis), as the auth service met it.
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  POOL_QUEUE_FULL,
]);

/** What `error` is as a store error (it, or the first error of its cause chain that is one), or null when it is none. */
export function classifyStoreError(error: unknown): StoreErrorClass | null {
  for (let seen = error, depth = 0; seen instanceof Error && depth < 8; seen = seen.cause, depth += 1) {
    const found = classifyOne(seen);
    if (found) return found;
  }
  return null;
}

function classifyOne(error: Error): StoreErrorClass | null {
  if (error instanceof pg.DatabaseError) {
    const { code, table } = error;
    if (code === undefined) return null;
    // FATAL: the server ended the session or refused to open one, whatever the code (a database
    // not accepting connections says 55000, which a statement may also raise, at ERROR).
    if (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || error.severity === 'FATAL' || error.severity === 'PANIC') return { kind: 'unavailable', reason: code };
    const kind = SQLSTATE_KINDS[code];
    return kind ? { kind, reason: code, ...(table ? { table } : {}) } : null;
  }
  if (error instanceof BetterSqlite3.SqliteError) {
    if (!SQLITE_UNIQUE.has(error.code)) return null;
    // "UNIQUE constraint failed: store_meta.key"
    const table = /failed: ([a-z_]+)\./.exec(error.message)?.[1];
    return { kind: 'unique', reason: error.code, ...(table ? { table } : {}) };
  }
  if (!(FROM_STORE in error)) return null;
  const { code, syscall } = error as Error & { code?: unknown; syscall?: unknown };
  if (typeof code === 'string' && SOCKET_CODES.has(code) && SOCKET_CALLS.has(syscall)) return { kind: 'unavailable', reason: code };
  return PG_MESSAGES.has(error.message) ? { kind: 'unavailable', reason: error.message } : null;
}

/** The code or message that makes `error` an outage of the PostgreSQL store, or null. */
export function storeUnavailableReason(error: unknown): string | null {
  const found = classifyStoreError(error);
  return found?.kind === 'unavailable' ? found.reason : null;
}

export function isStoreUnavailable(error: unknown): boolean {
  return storeUnavailableReason(error) !== null;
}

/** A NUL in text PostgreSQL refused. Path and query fields are refused before (src/http/request-validators.ts). */
export function isNulInText(error: unknown): boolean {
  return classifyStoreError(error)?.kind === 'bad_text';
}

/** A unique violation (23505): the row a write would make exists already. */
export function isUniqueViolation(error: unknown): boolean {
  return classifyStoreError(error)?.kind === 'unique';
}

/** A deadlock (40P01) or serialization failure (40001): the transaction lost a race and may run again. */
export function isTransactionRace(error: unknown): boolean {
  const kind = classifyStoreError(error)?.kind;
  return kind === 'deadlock' || kind === 'serialization';
}
