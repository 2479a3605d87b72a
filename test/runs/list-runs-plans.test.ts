import { CompiledQuery, sql, type Compilable } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ListState } from '../../src/contract/vocabulary.js';
import type { BackendStore } from '../../src/db/dialect.js';
import { runListing, type ListFilters } from '../../src/runs/list-runs.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';

const stores = engineStores();

/**
 * Whether the engine sorts rows to answer `query` rather than reading an index in the
 * query's order. PostgreSQL is told to avoid sorting wherever an index gives the order, so
 * its planner's choice on a small table says what it could do on a large one.
 */
async function sorts(store: BackendStore, query: Compilable): Promise<string | null> {
  const { sql: text, parameters } = query.compile();
  return store.db.connection().execute(async (connection) => {
    if (store.engine === 'sqlite') {
      const { rows } = await connection.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]));
      const plan = rows.map((row) => row.detail).join(' | ');
      return /TEMP B-TREE FOR .*ORDER BY/.test(plan) ? plan : null;
    }
    await sql`SET enable_sort = off`.execute(connection);
    try {
      const { rows } = await connection.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${text}`, [...parameters]));
      const plan = rows.map((row) => row['QUERY PLAN'].trim()).join(' | ');
      return /\bSort\b/.test(plan) ? plan : null;
    } finally {
      await sql`RESET enable_sort`.execute(connection);
    }
  });
}

const cursor = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'run-9'])).toString('base64url');

/** The pages SQLite reads in index order, which PostgreSQL must read alike. */
const CURSOR_PAGES: Array<[ListState, 'first' | 'next', string | undefined]> = [
  ['published', 'first', undefined],
  ['published', 'next', cursor],
  ['review', 'next', cursor],
  ['unreviewed', 'next', cursor],
  ['unpublished', 'next', cursor],
];
const OFFSET_PAGES: Array<[ListState, ListFilters]> = [
  ['published', {}],
  ['published', { dir: 'asc' }],
  ['review', {}],
  ['published', { model: 'vendor/model-7', harness: 'goose', sort: 'cost', dir: 'desc' }],
  ['published', { model: 'vendor/model-7', harness: 'goose' }],
];

describe.each(ENGINES)('the runs listing on %s', (engine) => {
  let opened: Promise<BackendStore> | undefined;
  const storeOf = () => (opened ??= stores.fresh(engine));

  it.each(CURSOR_PAGES)('reads the %s runs, %s cursor page, in index order', async (state, _page, before) => {
    const store = await storeOf();
    expect(await sorts(store, runListing(store).cursorQuery(state, before, 50))).toBeNull();
  });

  it.each(OFFSET_PAGES)('reads the %s runs, numbered page %j, in index order', async (state, filters) => {
    const store = await storeOf();
    expect(await sorts(store, runListing(store).offsetQuery(state, filters, 50, 50).page)).toBeNull();
  });
});
