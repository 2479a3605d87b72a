import pg from 'pg';
import { SECOND } from '../time.js';
import { markFromStore, POOL_QUEUE_FULL } from './store-errors.js';

/**
 * Every `pg` pool of the project is built here, so how long anything may wait on PostgreSQL is
 * one decision per kind of use:
 *
 * - `serving`: the pool that answers requests (the backend's store in the API and the worker). A request gets a deadline of a few seconds whatever the server does:
 *   a new connection not opened within STORE_CONNECT_TIMEOUT_MS fails, a statement running past
 *   STORE_STATEMENT_TIMEOUT_MS is cancelled by the server (and waiting for a lock past
 *   STORE_LOCK_TIMEOUT_MS), and a server that stopped answering without closing its
 *   connections (paused, a cut network) is given up a second later by the client, which drops
 *   that connection. A query waits at most STORE_POOL_WAIT_MS for a free connection, behind at
 *   most STORE_POOL_QUEUE others.
 * - `auth`: the auth service's pool. Its statements are one-row reads and writes by key, and
 *   the API waits AUTH_VERIFY_TIMEOUT_MS (3 s) for it: its deadlines end within that wait
 *   (AUTH_STATEMENT_TIMEOUT_MS), so the auth service answers 503, which the API passes on,
 *   rather than no answer, which the API can only report as unreachable (502).
 * - `statistics`: the statistics thread's pool (src/workers/read-stats.ts): the same connect and
 *   lock timeouts and bounded queue, and statements up to the thread's own read deadline
 *   (STATS_STATEMENT_TIMEOUT_MS), so a read the thread abandoned does not run on in the server.
 * - `migration`: one connection that may wait minutes for another process's migration (an
 *   advisory lock) and run long statements: only a generous connect timeout;
 *   migrate-postgres.ts sets its own lock timeouts.
 * - `copy`: `eval-backend store copy`, one session per side running long COPY-sized batches:
 *   a connect timeout and TCP keepalive, no statement limit; bigint comes back as a bigint.
 */
export type PoolPolicy = 'serving' | 'auth' | 'statistics' | 'migration' | 'copy';

/** A new connection to PostgreSQL not made within this long fails the query (503 `store_unavailable`). */
export const STORE_CONNECT_TIMEOUT_MS = 1 * SECOND;
/**
 * A request's statement still running after this long is cancelled by the server
 * (statement_timeout), and the client gives up on its answer a second later (query_timeout),
 * so a paused or cut-off server fails requests within a few seconds instead of holding them.
 * Longer than any statement a request makes.
 */
export const STORE_STATEMENT_TIMEOUT_MS = 5 * SECOND;
/** A request's statement waiting this long for a row or table lock fails (lock_timeout, SQLSTATE 55P03: 503). */
export const STORE_LOCK_TIMEOUT_MS = 4 * SECOND;
/** Connections the API or a worker process keeps to PostgreSQL at most, unless DATABASE_POOL_SIZE says. */
export const STORE_POOL_SIZE = 10;
/**
 * How long a query waits for one of the pool's connections to come free. A healthy store
 * under a burst (hundreds of reads at once) has every connection busy for a moment: that is a
 * wait, not an outage. A server that is down fails the connection the pool would open within
 * STORE_CONNECT_TIMEOUT_MS instead.
 */
export const STORE_POOL_WAIT_MS = 5 * SECOND;
/** Queries that may wait for a connection at once; one more is refused at once (503) rather than queued behind a store that cannot keep up. */
export const STORE_POOL_QUEUE = 2_000;
/** The auth service's statements stop after this long, its client gives up half a second later; its pool wait is as long. */
export const AUTH_STATEMENT_TIMEOUT_MS = 1.5 * SECOND;
/** The statistics thread's statements stop at its read deadline (src/stats/stats-reader.ts, 30 s). */
export const STATS_STATEMENT_TIMEOUT_MS = 30 * SECOND;
/** Connections of the statistics thread's pool: its reads run one at a time, each a few statements at once. */
const STATS_POOL_SIZE = 2;
/** Queries that may wait for one of the statistics pool's connections. */
const STATS_POOL_QUEUE = 16;
/** A migration's or a copy's connection not made within this long fails. */
const LONG_CONNECT_TIMEOUT_MS = 10 * SECOND;
/** After this long idle, TCP keepalive probes a pooled connection, so a peer that vanished without closing is found. */
const KEEPALIVE_IDLE_MS = 10 * SECOND;

interface PolicySettings {
  max: number;
  /** The wait for a free connection, and (pg-pool) for opening one. */
  poolWaitMs: number;
  /** The client's own bound on opening its connection. */
  connectMs: number;
  statementMs: number | null;
  lockMs: number | null;
  /** Waiting queries beyond this are refused; null: no bound. */
  queue: number | null;
}

const POLICIES: Record<PoolPolicy, PolicySettings> = {
  serving: {
    max: STORE_POOL_SIZE, poolWaitMs: STORE_POOL_WAIT_MS, connectMs: STORE_CONNECT_TIMEOUT_MS,
    statementMs: STORE_STATEMENT_TIMEOUT_MS, lockMs: STORE_LOCK_TIMEOUT_MS, queue: STORE_POOL_QUEUE,
  },
  auth: {
    max: STORE_POOL_SIZE, poolWaitMs: AUTH_STATEMENT_TIMEOUT_MS, connectMs: STORE_CONNECT_TIMEOUT_MS,
    statementMs: AUTH_STATEMENT_TIMEOUT_MS, lockMs: AUTH_STATEMENT_TIMEOUT_MS, queue: STORE_POOL_QUEUE,
  },
  statistics: {
    max: STATS_POOL_SIZE, poolWaitMs: STORE_POOL_WAIT_MS, connectMs: STORE_CONNECT_TIMEOUT_MS,
    statementMs: STATS_STATEMENT_TIMEOUT_MS, lockMs: STORE_LOCK_TIMEOUT_MS, queue: STATS_POOL_QUEUE,
  },
  migration: { max: 1, poolWaitMs: LONG_CONNECT_TIMEOUT_MS, connectMs: LONG_CONNECT_TIMEOUT_MS, statementMs: null, lockMs: null, queue: null },
  copy: { max: 1, poolWaitMs: LONG_CONNECT_TIMEOUT_MS, connectMs: LONG_CONNECT_TIMEOUT_MS, statementMs: null, lockMs: null, queue: null },
};

export interface StorePoolOptions {
  /**
   * Told of an error on an idle pooled connection (the server restarted, say): the pool drops
   * that connection and opens a new one when next needed. Default: ignored.
   */
  onIdleError?: (error: Error) => void;
  /** Connections kept at most, in place of the policy's (DATABASE_POOL_SIZE). */
  max?: number;
}

/** Where to connect: a URL, and the session options (`-c search_path=...`) when any. */
export type StoreConnection = Pick<pg.PoolConfig, 'connectionString' | 'options'>;

/** A pool under `policy` (see PoolPolicy) to `connection`. */
export function storePool(policy: PoolPolicy, connection: StoreConnection, { onIdleError, max }: StorePoolOptions = {}): pg.Pool {
  const settings = POLICIES[policy];
  return newStorePool({
    ...connection,
    max: max ?? settings.max,
    // pg-pool applies connectionTimeoutMillis to the wait for a free connection as well as
    // to opening one; the client's own (below) bounds only the opening.
    connectionTimeoutMillis: settings.poolWaitMs,
    Client: clientClass(settings.connectMs),
    // The client gives up a moment after the server should have answered that it stopped the statement.
    ...(settings.statementMs === null ? {} : { statement_timeout: settings.statementMs, query_timeout: settings.statementMs + Math.min(SECOND, settings.statementMs / 3) }),
    ...(settings.lockMs === null ? {} : { lock_timeout: settings.lockMs }),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    // pg_stat_activity shows which pool a session belongs to.
    application_name: `eval-backend ${policy}`,
    types: { getTypeParser: policy === 'copy' ? bigintTypeParser : numberTypeParser },
  }, settings.queue, onIdleError);
}

/**
 * A pool with the caller's own settings (tests), whose counts come back as numbers and whose
 * errors are marked as the store's; the service builds its pools with storePool.
 */
export function plainStorePool(config: pg.PoolConfig, onIdleError?: (error: Error) => void): pg.Pool {
  return newStorePool({ ...config, Client: clientClass(config.connectionTimeoutMillis ?? 0), types: { getTypeParser: numberTypeParser } }, null, onIdleError);
}

/** The one `new pg.Pool` of the project. */
function newStorePool(config: pg.PoolConfig, queue: number | null, onIdleError: (error: Error) => void = () => {}): pg.Pool {
  const pool = new pg.Pool(config);
  // An idle connection the server ends (a restart, a terminated session) is an 'error' event
  // on the pool, which kills the process when nobody listens. The pool has already dropped
  // that connection and opens another when next asked, so there is nothing else to do.
  pool.on('error', onIdleError);
  const connect = pool.connect.bind(pool) as (callback?: ConnectCallback) => Promise<pg.PoolClient> | undefined;
  // pg-pool's own failures (its wait timed out) are marked here; the client marks its own.
  // pool.query goes through this too.
  const bounded = (callback?: ConnectCallback) => {
    const full = queue !== null && pool.totalCount >= pool.options.max && pool.waitingCount >= queue ? markFromStore(new Error(POOL_QUEUE_FULL)) : null;
    if (callback) {
      if (full) process.nextTick(() => callback(full, undefined, () => {}));
      else connect((error, client, done) => callback(markFromStore(error), client, done));
      return undefined;
    }
    if (full) return Promise.reject(full);
    return connect()!.catch((error: unknown) => { throw markFromStore(error); });
  };
  pool.connect = bounded as typeof pool.connect;
  return pool;
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * A `pg` client that gives up opening its connection after `connectMs`, whatever its pool
 * waits, and marks every error it raises as the store's (store-errors.ts). A query the server
 * did not answer in time (query_timeout) ends the connection: it is stuck behind that query,
 * and the pool opens a fresh one. It always listens for its own errors: a client whose
 * connection ends while its pool is not listening (out of the pool between queries, say)
 * emits one, which would otherwise end the process. Its queries fail with the error, and the
 * pool drops a client whose connection ended when it is released.
 */
function clientClass(connectMs: number): typeof pg.Client {
  return class StoreClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectMs });
      this.on('error', () => {});
      const query = this.query.bind(this) as (...args: unknown[]) => unknown;
      const failed = (error: unknown) => {
        if (error instanceof Error && error.message === 'Query read timeout') void this.end().catch(() => {});
        return markFromStore(error);
      };
      this.query = ((...args: unknown[]) => {
        const last = args.at(-1);
        if (typeof last === 'function') args[args.length - 1] = (error: unknown, result: unknown) => (last as (e: unknown, r: unknown) => void)(error ? failed(error) : error, result);
        const result = query(...args);
        return result instanceof Promise ? result.catch((error: unknown) => { throw failed(error); }) : result;
      }) as typeof this.query;
      const connect = this.connect.bind(this) as (callback?: (error: Error) => void) => Promise<unknown> | undefined;
      this.connect = ((callback?: (error: Error) => void) => callback
        ? connect((error) => callback(markFromStore(error)))
        : connect()!.catch((error: unknown) => { throw markFromStore(error); })) as typeof this.connect;
    }

  };
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Counts come back as numbers, as better-sqlite3 gives them: pg answers bigint (COUNT, SUM
 * of integers, our bigint columns) and numeric as strings by default. A bigint past 2^53
 * fails the read rather than round silently. The parsers are per pool, so importing this
 * module changes nothing global.
 */
const numberTypeParser = ((oid: number, format?: 'text' | 'binary') => {
  if (oid === INT8_OID) return parseSafeInteger;
  if (oid === NUMERIC_OID) return Number;
  return pg.types.getTypeParser(oid, format);
}) as typeof pg.types.getTypeParser;

/** A copy carries every bigint, past 2^53 too, as a JavaScript bigint. */
const bigintTypeParser = ((oid: number, format?: 'text' | 'binary') =>
  oid === INT8_OID ? (text: string) => BigInt(text) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser;

function parseSafeInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} does not fit a JavaScript number`);
  return value;
}
