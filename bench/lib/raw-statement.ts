import type { CompiledQuery, Kysely } from 'kysely';
import type { BackendStore } from '../../src/db/dialect.js';
import type { Database } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';

/**
 * A store query as better-sqlite3 runs it with no query builder between: compiled for SQLite
 * once, prepared once on `db`, bound with the compiled parameters. The raw side of a benchmark.
 */
export function rawStatement(db: Database, store: BackendStore, query: { compile(executor: Kysely<StoreSchema>): CompiledQuery }) {
  const { sql, parameters } = query.compile(store.db);
  const statement = db.prepare(sql);
  return {
    all: () => statement.all(...parameters),
    /** The planner's steps, one line each. */
    plan: () => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{ detail: string }>).map((step) => step.detail).join(' | '),
  };
}
