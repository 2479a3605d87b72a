import { LIST_STATES, SORTS, type ListState, type Sort } from '../contract/vocabulary.js';
import type { Database } from '../db/open-database.js';
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

/** The row columns, qualified for queries that alias `runs` as `r`. */
const SELECTED = LISTED_COLUMNS.split(',').map((column) => `r.${column.trim()}`).join(', ');

const quoted = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

/** Each state's set (http-interface.md, `GET /runs`), over readable runs only. */
function statePredicate(state: ListState, alias: string): string {
  const failures = `${alias}.state IN (${quoted(FAILURE_TIERS)})`;
  switch (state) {
    case 'published':
      return `${alias}.published = 1`;
    case 'review':
      return `${alias}.state = 'completed'`;
    case 'failures':
      return failures;
    case 'unreviewed':
      return `${alias}.state = 'completed' AND ${alias}.review_count = 0 AND COALESCE(${alias}.test_type, '') NOT IN (${quoted(AUTO_GRADED_TEST_TYPES)})`;
    case 'unpublished':
      return `${alias}.published = 0`;
    case 'publishable':
      // The publish gate: failure tiers always, completed runs when validator-rated or reviewed.
      return `${alias}.published = 0 AND (${failures} OR (${alias}.state = 'completed' AND (${alias}.validator_rated = 1 OR ${alias}.review_count > 0)))`;
    case 'any':
      return '1 = 1';
  }
}

/** The ordering timestamp of a state: publish time for published runs, finish time otherwise. */
const orderColumn = (state: ListState) => (state === 'published' ? 'published_at' : 'finished_at');

const SORT_COLUMNS: Record<Exclude<Sort, 'date'>, string> = {
  runtime: 'r.run_time_seconds',
  tokens: 'r.tokens_total',
  cost: 'r.cost',
  rating: 'r.rating_rank',
  testType: 'r.test_type',
  // The display name from the latest ingested manifest, else the slug.
  testCase: 'COALESCE(r.case_name, r.test_case_slug)',
  harness: 'r.harness',
  // A gg run sorts by the configuration it was launched from.
  model: 'COALESCE(r.gg_config_id, r.model_id)',
  variant: 'r.variant',
};

export interface CursorPage {
  rows: ListedRow[];
  nextBefore: string | null;
}

export interface OffsetPage {
  rows: ListedRow[];
  total: number;
}

/** Builds and caches the listing statements; one prepared statement per distinct query shape. */
export function runListing(db: Database) {
  const statements = new Map<string, ReturnType<Database['prepare']>>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };

  /** The offset-mode WHERE clause and its named parameters; exported so the benchmark can run the same SQL raw. */
  function offsetQuery(state: ListState, filters: ListFilters, offset: number, limit: number) {
    const where = ['r.decode_error IS NULL', statePredicate(state, 'r')];
    const params: Record<string, unknown> = {};
    const exact = [
      ['testCase', 'test_case_slug'],
      ['model', 'model_id'],
      ['harness', 'harness'],
      ['variant', 'variant'],
      ['version', 'test_case_version'],
      ['engine', 'engine'],
      ['ggConfigId', 'gg_config_id'],
      ['aesthetic', 'aesthetic'],
    ] as const;
    for (const [name, column] of exact) {
      const value = filters[name];
      if (value === undefined) continue;
      where.push(`r.${column} = @${name}`);
      params[name] = value;
    }
    if (filters.versions) {
      where.push('r.test_case_version IN (SELECT value FROM json_each(@versions))');
      params.versions = JSON.stringify(filters.versions);
    }
    if (filters.testCases) {
      where.push('r.test_case_slug IN (SELECT value FROM json_each(@testCases))');
      params.testCases = JSON.stringify(filters.testCases);
    }
    if (filters.latestVersions && filters.version === undefined && filters.versions === undefined) {
      where.push(
        `r.version_rank = (SELECT MAX(l.version_rank) FROM runs l WHERE l.test_case_slug = r.test_case_slug AND l.decode_error IS NULL AND ${statePredicate(state, 'l')})`,
      );
    }
    if (filters.q !== undefined && filters.q !== '') {
      where.push(
        `(r.test_case_slug LIKE @q ESCAPE '\\' OR r.model_id LIKE @q ESCAPE '\\' OR r.harness LIKE @q ESCAPE '\\' OR r.variant LIKE @q ESCAPE '\\' OR r.gg_config_name LIKE @q ESCAPE '\\')`,
      );
      params.q = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    }
    const dir = filters.dir === 'asc' ? 'ASC' : 'DESC';
    const sort = filters.sort ?? 'date';
    const order =
      sort === 'date'
        ? `r.${orderColumn(state)} ${dir}, r.id ${dir}`
        : `${SORT_COLUMNS[sort]} ${dir} NULLS LAST, r.id ${dir}`;
    const clause = where.join(' AND ');
    return {
      pageSql: `SELECT ${SELECTED} FROM runs r WHERE ${clause} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
      countSql: `SELECT COUNT(*) FROM runs r WHERE ${clause}`,
      params,
      pageParams: { ...params, limit, offset },
    };
  }

  return {
    offsetQuery,
    offset(state: ListState, filters: ListFilters, offset: number, limit: number): OffsetPage {
      const query = offsetQuery(state, filters, offset, limit);
      const rows = prepare(query.pageSql).all(query.pageParams) as ListedRow[];
      const total = prepare(query.countSql).pluck().get(query.params) as number;
      return { rows, total };
    },

    cursor(state: ListState, before: string | undefined, limit: number): CursorPage {
      const column = `r.${orderColumn(state)}`;
      const position = before === undefined ? null : decodeCursor(before);
      const sql = `SELECT ${SELECTED} FROM runs r
        WHERE r.decode_error IS NULL AND ${statePredicate(state, 'r')}
        ${position ? `AND (${column} < @at OR (${column} = @at AND r.id < @id))` : ''}
        ORDER BY ${column} DESC, r.id DESC LIMIT @limit`;
      const rows = prepare(sql).all({ ...(position ?? {}), limit: limit + 1 }) as ListedRow[];
      const more = rows.length > limit;
      if (more) rows.length = limit;
      const last = rows.at(-1);
      const at = last ? (state === 'published' ? last.published_at : last.finished_at) : null;
      return { rows, nextBefore: more && last ? encodeCursor(at ?? '', last.id) : null };
    },
  };
}

export type RunListing = ReturnType<typeof runListing>;

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
