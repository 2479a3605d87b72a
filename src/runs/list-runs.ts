import { LIST_STATES, SORTS, type ListState, type Sort } from '../contract/vocabulary.js';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { likeInsensitive, type BackendStore } from '../db/dialect.js';
import type { RunsTable } from '../db/store-schema.js';
import { badRequest } from '../errors.js';
import { LISTED_COLUMNS, type ListedRow } from './run-rows.js';
import { AUTO_GRADED_TEST_TYPES, FAILURE_TIERS } from './run-states.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export interface ListFilters {
  testCase?: string;
  model?: string;
  harness?: string;
  variant?: string;
  version?: string;
  engine?: string;
  versions?: string[];
  testCases?: string[];
  ggConfigId?: string;
  aesthetic?: string;
  latestVersions?: boolean;
  q?: string;
  sort?: Sort;
  dir?: 'asc' | 'desc';
}

type Column = keyof RunsTable;

/** Each state's set (http-interface.md, `GET /runs`), over readable runs only; `alias` names the `runs` row. */
function statePredicate(state: ListState, alias: 'r' | 'l'): Expression<SqlBool> {
  const column = (name: Column) => sql.ref(`${alias}.${name}`);
  const failures = sql<SqlBool>`${column('state')} IN (${sql.join(FAILURE_TIERS)})`;
  switch (state) {
    case 'published':
      return sql<SqlBool>`${column('published')} = 1`;
    case 'review':
      return sql<SqlBool>`${column('state')} = 'completed'`;
    case 'failures':
      return failures;
    case 'unreviewed':
      return sql<SqlBool>`${column('state')} = 'completed' AND ${column('review_count')} = 0
        AND COALESCE(${column('test_type')}, '') NOT IN (${sql.join(AUTO_GRADED_TEST_TYPES)})`;
    case 'unpublished':
      return sql<SqlBool>`${column('published')} = 0`;
    case 'publishable':
      // The publish gate: failure tiers always, completed runs when validator-rated or reviewed.
      return sql<SqlBool>`${column('published')} = 0 AND (${failures}
        OR (${column('state')} = 'completed' AND (${column('validator_rated')} = 1 OR ${column('review_count')} > 0)))`;
    case 'any':
      return sql<SqlBool>`1 = 1`;
  }
}

/** The ordering timestamp of a state: publish time for published runs, finish time otherwise. */
const orderColumn = (state: ListState) => (state === 'published' ? 'published_at' : 'finished_at');

const SORT_COLUMNS: Record<Exclude<Sort, 'date'>, Expression<unknown>> = {
  runtime: sql.ref('r.run_time_seconds'),
  tokens: sql.ref('r.tokens_total'),
  cost: sql.ref('r.cost'),
  rating: sql.ref('r.rating_rank'),
  testType: sql.ref('r.test_type'),
  // The display name from the latest ingested manifest, else the slug.
  testCase: sql`COALESCE(r.case_name, r.test_case_slug)`,
  harness: sql.ref('r.harness'),
  // A gg run sorts by the configuration it was launched from.
  model: sql`COALESCE(r.gg_config_id, r.model_id)`,
  variant: sql.ref('r.variant'),
};

const EXACT_FILTERS = [
  ['testCase', 'test_case_slug'],
  ['model', 'model_id'],
  ['harness', 'harness'],
  ['variant', 'variant'],
  ['version', 'test_case_version'],
  ['engine', 'engine'],
  ['ggConfigId', 'gg_config_id'],
  ['aesthetic', 'aesthetic'],
] as const satisfies readonly (readonly [keyof ListFilters, Column])[];

/** The columns a free-text search looks in, case-insensitively. */
const SEARCHED = ['test_case_slug', 'model_id', 'harness', 'variant', 'gg_config_name'] as const satisfies readonly Column[];

export interface CursorPage {
  rows: ListedRow[];
  nextBefore: string | null;
}

export interface OffsetPage {
  rows: ListedRow[];
  total: number;
}

/**
 * The runs listings: numbered pages with filters and sorts, and the cursor pages. Every
 * order ends with the id, so ties (and NULLs, placed explicitly) page the same on both engines.
 */
export function runListing(store: BackendStore) {
  const { db, engine } = store;

  /** The readable runs of a state that pass `filters`, as `r`. */
  function filtered(state: ListState, filters: ListFilters) {
    let query = db.selectFrom('runs as r').where('r.decode_error', 'is', null).where(statePredicate(state, 'r'));
    for (const [name, column] of EXACT_FILTERS) {
      const value = filters[name];
      if (value !== undefined) query = query.where(`r.${column}`, '=', value);
    }
    if (filters.versions) query = query.where(oneOf('r.test_case_version', filters.versions));
    if (filters.testCases) query = query.where(oneOf('r.test_case_slug', filters.testCases));
    if (filters.latestVersions && filters.version === undefined && filters.versions === undefined) {
      query = query.where((eb) =>
        eb(
          'r.version_rank',
          '=',
          eb
            .selectFrom('runs as l')
            .select((inner) => inner.fn.max('l.version_rank').as('latest'))
            .whereRef('l.test_case_slug', '=', 'r.test_case_slug')
            .where('l.decode_error', 'is', null)
            .where(statePredicate(state, 'l')),
        ),
      );
    }
    if (filters.q !== undefined && filters.q !== '') {
      const pattern = sql.val(`%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      query = query.where((eb) => eb.or(SEARCHED.map((column) => likeInsensitive(engine, sql.ref(`r.${column}`), pattern))));
    }
    return query;
  }

  /** A numbered page's query and its total's; exported so the benchmark can run the same SQL raw. */
  function offsetQuery(state: ListState, filters: ListFilters, offset: number, limit: number) {
    const where = filtered(state, filters);
    const dir = filters.dir === 'asc' ? 'asc' : 'desc';
    const sort = filters.sort ?? 'date';
    // NULLs where SQLite has always put them for dates (smallest), last for every other sort.
    const key = sort === 'date' ? sql.ref(`r.${orderColumn(state)}`) : SORT_COLUMNS[sort];
    const nulls = sort === 'date' && dir === 'asc' ? 'first' : 'last';
    return {
      page: where
        .select(LISTED_COLUMNS.map((column) => `r.${column}` as const))
        .orderBy(key, (ob) => (nulls === 'first' ? ob[dir]().nullsFirst() : ob[dir]().nullsLast()))
        .orderBy('r.id', dir)
        .limit(limit)
        .offset(offset),
      count: where.select((eb) => eb.fn.countAll<number>().as('total')),
    };
  }

  /** A cursor page's query, one row past `limit` to tell whether a next page exists; exported for the benchmark too. */
  function cursorQuery(state: ListState, before: string | undefined, limit: number) {
    const column = `r.${orderColumn(state)}` as const;
    const position = before === undefined ? null : decodeCursor(before);
    let query = db.selectFrom('runs as r').where('r.decode_error', 'is', null).where(statePredicate(state, 'r'));
    if (position) query = query.where((eb) => eb.or([eb(column, '<', position.at), eb.and([eb(column, '=', position.at), eb('r.id', '<', position.id)])]));
    return query
      .select(LISTED_COLUMNS.map((name) => `r.${name}` as const))
      .orderBy(column, (ob) => ob.desc().nullsLast())
      .orderBy('r.id', 'desc')
      .limit(limit + 1);
  }

  return {
    offsetQuery,
    cursorQuery,
    async offset(state: ListState, filters: ListFilters, offset: number, limit: number): Promise<OffsetPage> {
      const query = offsetQuery(state, filters, offset, limit);
      const rows = await query.page.execute();
      const { total } = await query.count.executeTakeFirstOrThrow();
      return { rows, total };
    },

    async cursor(state: ListState, before: string | undefined, limit: number): Promise<CursorPage> {
      const rows: ListedRow[] = await cursorQuery(state, before, limit).execute();
      const more = rows.length > limit;
      if (more) rows.length = limit;
      const last = rows.at(-1);
      const at = last ? (state === 'published' ? last.published_at : last.finished_at) : null;
      return { rows, nextBefore: more && last ? encodeCursor(at ?? '', last.id) : null };
    },
  };
}

export type RunListing = ReturnType<typeof runListing>;

/** `column IN (values)`; no value matches nothing (an empty IN list is not valid SQL everywhere). */
function oneOf(column: 'r.test_case_version' | 'r.test_case_slug', values: string[]) {
  return (eb: ExpressionBuilder<{ r: RunsTable }, 'r'>) => (values.length === 0 ? eb.lit(false) : eb(column, 'in', values));
}

/** The cursor is the ordering timestamp of the last row, with its id to break ties; opaque to clients. */
function encodeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

function decodeCursor(cursor: string): { at: string; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && typeof id === 'string') return { at, id };
  } catch {
    // fall through
  }
  throw badRequest('querystring.before is not a cursor this service returned (use nextBefore).');
}
