import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { SECOND } from '../time.js';
import { BACKEND_DATA_STEPS, migrateWithDataSteps } from './data-steps.js';
import { postgresPool, postgresStore, sqliteStore, type BackendStore } from './dialect.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from './migrate-postgres.js';
import { BACKEND_MIGRATIONS, migrateSqlite, openDatabase, type Database } from './open-database.js';
import { maskPostgresUrl } from './store-copy/store-location.js';
import type { StoreSchema } from './store-schema.js';

/** A new connection to PostgreSQL not made within this long fails the query (503 `store_unavailable`). */
export const STORE_CONNECT_TIMEOUT_MS = 1 * SECOND;
/**
 * A statement still running after this long is cancelled by the server (statement_timeout),
 * and the client gives up on its answer a moment later (query_timeout): a server that stopped
 * answering without closing its connections fails requests instead of holding them. Longer
 * than any query a request makes; migrations run on a connection of their own without it.
 */
export const STORE_STATEMENT_TIMEOUT_MS = 30 * SECOND;
/** Connections the API or a worker process keeps to PostgreSQL at most, unless DATABASE_POOL_SIZE says. */
export const STORE_POOL_SIZE = 10;
/**
 * How long a query waits for one of the pool's connections to come free. A healthy store
 * under a burst (hundreds of reads at once) has every connection busy for a moment: that is a
 * wait, not an outage. A server that is down fails the connection it would open within
 * STORE_CONNECT_TIMEOUT_MS instead, and a query on a connection it ended fails at once.
 */
export const STORE_POOL_WAIT_MS = STORE_STATEMENT_TIMEOUT_MS;

export interface OpenedStore {
  store: BackendStore;
  /**
   * The SQLite handle under `store`, for modules not moved to the store layer yet; null on
   * PostgreSQL, where nothing may need it.
   */
  sqlite: Database | null;
  /** Where the store is (a file, or the URL with its password masked): safe to log. */
  location: string;
  /** Closes the handle or ends the pool. */
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /**
   * Told of an error on an idle pooled connection (the server restarted, say): the pool drops
   * that connection and opens a new one when next needed. Default: ignored.
   */
  onIdleError?: (error: Error) => void;
}

/**
 * Opens the deployment's store, migrated: a `pg` pool on DATABASE_URL when it is set (no
 * SQLite file is created), otherwise the SQLite file `DATA_DIR/backend.sqlite`. The API and
 * `npm run worker` open it alike.
 */
export async function openStore(
  config: Pick<Config, 'dataDir' | 'databaseUrl'> & Partial<Pick<Config, 'databasePoolSize'>>,
  options: OpenStoreOptions = {},
): Promise<OpenedStore> {
  if (config.databaseUrl === null) {
    const file = join(config.dataDir, 'backend.sqlite');
    const sqlite = openDatabase(file, BACKEND_MIGRATIONS, firstDataStep());
    // The Kysely instance is not destroyed: that would close the handle a second time.
    const store = sqliteStore<StoreSchema>(sqlite);
    try {
      await migrateWithDataSteps(store, BACKEND_DATA_STEPS, (upTo) => migrateSqlite(sqlite, BACKEND_MIGRATIONS, upTo));
    } catch (error) {
      sqlite.close();
      throw error;
    }
    return { store, sqlite, location: file, close: async () => { sqlite.close(); } };
  }
  const connectionString = config.databaseUrl;
  await migrateOnItsOwnConnection({ connectionString }, (migrator) =>
    migrateWithDataSteps(postgresStore(migrator), BACKEND_DATA_STEPS, (upTo) => migratePostgres(migrator, POSTGRES_MIGRATIONS, { upTo })));
  const store = postgresStore<StoreSchema>(servingPool({ connectionString, max: config.databasePoolSize ?? STORE_POOL_SIZE }, options.onIdleError));
  return { store, sqlite: null, location: maskPostgresUrl(connectionString), close: () => store.db.destroy() };
}

/** The number of the migration the first data step follows (Infinity: none), where opening the SQLite file stops migrating. */
function firstDataStep(): number {
  return Math.min(Infinity, ...BACKEND_DATA_STEPS.map((step) => step.after));
}

/**
 * Runs `migrate` on a pool of one connection of its own, ended after: migrations may wait
 * minutes for another process's (an advisory lock) and run long statements, so they go
 * without the serving pool's timeouts, bar a generous one for connecting.
 */
export async function migrateOnItsOwnConnection(config: pg.PoolConfig, migrate: (pool: pg.Pool) => Promise<void>): Promise<void> {
  const migrator = postgresPool({ ...config, max: 1, connectionTimeoutMillis: 10 * STORE_CONNECT_TIMEOUT_MS });
  try {
    await migrate(migrator);
  } finally {
    await migrator.end();
  }
}

/**
 * The pool a process serves requests from, for the backend's store and the auth service's
 * alike: an unreachable server fails a new connection within STORE_CONNECT_TIMEOUT_MS, a
 * statement that runs on past STORE_STATEMENT_TIMEOUT_MS is cancelled, and a busy pool is
 * waited for (STORE_POOL_WAIT_MS), so no request hangs on the database.
 */
export function servingPool(config: pg.PoolConfig, onIdleError?: (error: Error) => void): pg.Pool {
  return postgresPool({
    ...config,
    max: config.max ?? STORE_POOL_SIZE,
    // pg-pool applies connectionTimeoutMillis to the wait for a free connection as well as
    // to opening one; the client's own setting bounds only the opening.
    connectionTimeoutMillis: STORE_POOL_WAIT_MS,
    Client: QuickConnectClient,
    statement_timeout: STORE_STATEMENT_TIMEOUT_MS,
    query_timeout: STORE_STATEMENT_TIMEOUT_MS + SECOND,
    // Finds a peer that vanished without closing (a cut network) on an idle connection.
    keepAlive: true,
  }, onIdleError);
}

/**
 * Whether the store answers a trivial query within STORE_CONNECT_TIMEOUT_MS: null when it
 * does, otherwise why not (for readiness). SQLite is a file this process holds open: always
 * reachable.
 */
export async function storeUnreachable(store: BackendStore): Promise<string | null> {
  if (store.engine === 'sqlite') return null;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STORE_CONNECT_TIMEOUT_MS} ms`)), STORE_CONNECT_TIMEOUT_MS);
  });
  try {
    await Promise.race([sql`SELECT 1`.execute(store.db), late]);
    return null;
  } catch (error) {
    return `The store (PostgreSQL) cannot be reached: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A `pg` client that gives up opening its connection after STORE_CONNECT_TIMEOUT_MS, whatever
 * its pool waits. It always listens for its own errors: a client whose connection ends while
 * its pool is not listening (out of the pool between queries, say) emits one, which would
 * otherwise end the process. Its queries fail with the error, and the pool drops a client
 * whose connection ended when it is released.
 */
class QuickConnectClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: STORE_CONNECT_TIMEOUT_MS });
    this.on('error', () => {});
  }
}
