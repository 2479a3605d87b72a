import type { BackendStore } from '../db/dialect.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './list-runs.js';

interface Row {
  id: string;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
  test_case_slug: string;
  test_case_version: string;
  variant: string;
  engine: string;
  harness: string;
  model_id: string;
  gg_config_id: string | null;
  gg_config_name: string | null;
  test_type: string | null;
  state: string;
  published: number;
  review_count: number;
  record_format: number;
  decode_error: string;
}

/** `GET /runs/unreadable`: stored runs this build cannot decode, newest first by finish time. */
export function unreadableRuns(store: BackendStore) {
  const unreadable = () => store.db.selectFrom('runs as r').where('r.decode_error', 'is not', null);

  return async (offset = 0, limit = DEFAULT_LIMIT) => {
    const rows = await unreadable()
      .select([
        'r.id', 'r.started_at', 'r.finished_at', 'r.created_at', 'r.updated_at', 'r.test_case_slug', 'r.test_case_version', 'r.variant', 'r.engine',
        'r.harness', 'r.model_id', 'r.gg_config_id', 'r.gg_config_name', 'r.test_type', 'r.state', 'r.published', 'r.record_format', 'r.decode_error',
      ])
      .select((eb) => eb.selectFrom('run_reviews as v').select((inner) => inner.fn.countAll<number>().as('n')).whereRef('v.run_id', '=', 'r.id').as('review_count'))
      .orderBy('r.finished_at', (ob) => ob.desc().nullsLast())
      .orderBy('r.id', 'desc')
      .limit(Math.min(limit, MAX_LIMIT))
      .offset(offset)
      .$narrowType<Row>()
      .execute();
    const { total } = await unreadable().select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return { runs: rows.map(fromRow), total };
  };
}

const fromRow = (row: Row) => ({
  id: row.id,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  testCaseSlug: row.test_case_slug,
  testCaseVersion: row.test_case_version,
  variant: row.variant,
  engine: row.engine,
  harnessSlug: row.harness,
  modelId: row.model_id,
  ggConfigId: row.gg_config_id,
  ggConfigName: row.gg_config_name,
  testType: row.test_type,
  state: row.state,
  published: row.published === 1,
  reviewCount: row.review_count,
  recordFormat: row.record_format,
  decodeError: row.decode_error,
});
