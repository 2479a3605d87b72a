import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompiledQuery, Kysely } from 'kysely';
import pg from 'pg';
import type { BackendStore, Engine } from '../../src/db/dialect.js';
import { startManagedPostgres, type ManagedPostgres } from '../../src/db/managed-postgres.js';
import type { Database } from '../../src/db/open-database.js';
import { copyStore } from '../../src/db/store-copy/copy-store.js';
import { storeLocation } from '../../src/db/store-copy/store-location.js';
import type { StoreSchema } from '../../src/db/store-schema.js';

const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/**
 * The engines a store bench measures: `--store sqlite|postgres|both` on the command line
 * (`npm run bench -- claim --store postgres`); both when it is absent.
 */
export function benchEngines(argv: readonly string[] = process.argv): Engine[] {
  const at = argv.indexOf('--store');
  const given = at === -1 ? 'both' : argv[at + 1];
  if (given === 'both') return [...ENGINES];
  if (given === 'sqlite' || given === 'postgres') return [given];
  throw new Error(`--store must be sqlite, postgres or both, not ${given ?? 'nothing'}`);
}

/** A throwaway PostgreSQL cluster for one bench, in its own short folder under tmpdir() (the socket path must stay short). */
export async function benchPostgres(): Promise<ManagedPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'evb-bench-pg-'));
  try {
    const server = await startManagedPostgres({ dir });
    return {
      ...server,
      async stop() {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A new database on `server` holding a copy of the SQLite store in `file` (made by
 * `eval-backend store copy`, verified): the PostgreSQL side of a bench is seeded with the
 * rows the SQLite side's own code wrote, moved as multi-row inserts, then analyzed.
 */
export async function copiedToPostgres(server: ManagedPostgres, file: string, name: string): Promise<string> {
  const url = await server.createDatabase(name);
  const start = Date.now();
  const reports = await copyStore(storeLocation(file, tmpdir()), storeLocation(url, tmpdir()));
  const failed = reports.filter((report) => !report.ok).map((report) => report.table);
  if (failed.length > 0) throw new Error(`the bench store's copy did not verify: ${failed.join(', ')}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
  console.log(`copied the SQLite store to PostgreSQL in ${Date.now() - start} ms`);
  return url;
}

/**
 * Where a bench's raw side runs its statements with no query builder between: the SQLite
 * handle, or one `pg` connection of its own to the PostgreSQL database.
 */
export type RawHandle = { engine: 'sqlite'; db: Database } | { engine: 'postgres'; client: pg.Client };

/** The raw handle beside a bench backend's store: its SQLite handle, or a connection to `databaseUrl`. */
export async function rawHandle(backend: { store: BackendStore; db: Database }, databaseUrl: string | null): Promise<RawHandle & { close(): Promise<void> }> {
  // The SQLite handle is read only on SQLite: on PostgreSQL reading it throws.
  if (backend.store.engine === 'sqlite') return { engine: 'sqlite', db: backend.db, close: async () => {} };
  if (!databaseUrl) throw new Error('a PostgreSQL bench store without its URL');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return { engine: 'postgres', client, close: () => client.end() };
}

export interface RawQuery {
  run(): Promise<unknown[]>;
  /** The planner's steps, one line each (PostgreSQL: EXPLAIN ANALYZE with its timings). */
  plan(): Promise<string>;
}

let prepared = 0;

/**
 * A store query as the engine's own driver runs it: compiled once for the store's dialect,
 * prepared once (a better-sqlite3 statement, or a named PostgreSQL prepared statement on the
 * raw connection), bound with the compiled parameters. The raw side of a store bench.
 */
export function rawQuery(handle: RawHandle, store: BackendStore, query: { compile(executor: Kysely<StoreSchema>): CompiledQuery } | CompiledQuery): RawQuery {
  const { sql, parameters } = 'sql' in query ? query : query.compile(store.db);
  return rawSql(handle, sql, parameters);
}

/** Hand-written SQL with `?` placeholders, as the raw side of a bench spells a plain read; numbered for PostgreSQL. */
export function rawText(handle: RawHandle, text: string, parameters: readonly unknown[] = []): RawQuery {
  let n = 0;
  return rawSql(handle, handle.engine === 'sqlite' ? text : text.replace(/\?/g, () => `$${++n}`), parameters);
}

/** SQL prepared once on the engine's own driver (numbered placeholders on PostgreSQL), run with each call's parameters. */
export function rawStatement(handle: RawHandle, sql: string): (parameters: readonly unknown[]) => Promise<unknown[]> {
  if (handle.engine === 'sqlite') {
    const statement = handle.db.prepare(sql);
    return async (parameters) => (statement.reader ? statement.all(...parameters) : (statement.run(...parameters), []));
  }
  const { client } = handle;
  const name = `bench_raw_${++prepared}`;
  return async (parameters) => (await client.query({ name, text: sql, values: [...parameters] })).rows;
}

function rawSql(handle: RawHandle, sql: string, parameters: readonly unknown[]): RawQuery {
  const statement = rawStatement(handle, sql);
  if (handle.engine === 'sqlite') {
    return {
      run: () => statement(parameters),
      plan: async () => (handle.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{ detail: string }>).map((step) => step.detail).join(' | '),
    };
  }
  const { client } = handle;
  return {
    run: () => statement(parameters),
    plan: async () => {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN ANALYZE ${sql}`, values: [...parameters] });
      return rows.map((row) => row['QUERY PLAN'].trim()).join(' | ');
    },
  };
}
