import { sql, type Insertable, type Kysely } from 'kysely';
import { lockedRows, lockRunId, sameValue, writeTransaction, type BackendStore, type Engine } from '../db/dialect.js';
import type { RunsTable, StoreSchema } from '../db/store-schema.js';
import { storeGgStats } from '../stats/gg-stats-rows.js';
import type { LiftedRun } from './decode-run-record.js';
import type { ReviewRevision } from './review-diff.js';

/** One `runs` row as the listings and the detail read it (never the events). */
export interface RunRow {
  id: string;
  record: string;
  record_format: number;
  decode_error: string | null;
  state: string;
  published: number;
  published_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  test_case_slug: string;
  test_case_version: string;
  variant: string;
  harness: string;
  model_id: string;
  engine: string;
  test_type: string | null;
  gg_config_id: string | null;
  gg_config_name: string | null;
  summary: string | null;
  validator_verdicts: string;
  link_source_repo: string | null;
  link_playable_build: string | null;
  review_count: number;
  validator_rated: number;
  grade: string | null;
  grade_key: string | null;
  case_name: string | null;
}

export interface StoredReview {
  reviewerId: string;
  reviewer: string;
  username: string;
  ratings: { domain: string; rating: string }[];
  aesthetic: string | null;
  writeup: string;
  checklist: { id: string; status: string; note?: string | null }[];
  reviewedAt: string;
  editedAt: string | null;
  revisions: ReviewRevision[];
}

interface ReviewRow {
  run_id: string;
  reviewer_id: string;
  reviewer: string;
  username: string;
  ratings: string;
  aesthetic: string | null;
  writeup: string;
  checklist: string;
  reviewed_at: string;
  edited_at: string | null;
  revisions: string;
}

/** A run's derived grade columns, as a regrade writes them. */
export interface GradeColumns {
  id: string;
  reviewCount: number;
  aesthetic: string | null;
  aestheticRank: number | null;
  ratingRank: number | null;
  validatorRated: number;
  grade: string;
  gradeKey: string;
  caseName: string;
  /** The validators' own rating rank (validator-rated runs), for the ladder gate. */
  validatorRatingRank: number | null;
  /** Each review's functional rating rank, for the ladder gate. */
  reviewRatingRanks: { reviewerId: string; rank: number | null }[];
}

/** What listings select: everything but the record, which only a detail needs. */
export type ListedRow = Omit<RunRow, 'record'>;

export const LISTED_COLUMNS = [
  'id', 'record_format', 'decode_error', 'state', 'published', 'published_at', 'started_at', 'finished_at', 'test_case_slug',
  'test_case_version', 'variant', 'harness', 'model_id', 'engine', 'test_type', 'gg_config_id', 'gg_config_name', 'summary',
  'validator_verdicts', 'link_source_repo', 'link_playable_build', 'review_count', 'validator_rated', 'grade', 'grade_key', 'case_name',
] as const satisfies readonly (keyof ListedRow & keyof RunsTable)[];

/** The detail's columns: the listed ones and the record. */
export const RUN_COLUMNS = [...LISTED_COLUMNS, 'record'] as const;

const fromReviewRow = (row: ReviewRow): StoredReview => ({
  reviewerId: row.reviewer_id,
  reviewer: row.reviewer,
  username: row.username,
  ratings: JSON.parse(row.ratings),
  aesthetic: row.aesthetic,
  writeup: row.writeup,
  checklist: JSON.parse(row.checklist),
  reviewedAt: row.reviewed_at,
  editedAt: row.edited_at,
  revisions: JSON.parse(row.revisions),
});

/** The stored row as the upsert writes it, from the record and what decoding lifted (benches seed with it too). */
export function runValues(row: StoredRun, now: string): Insertable<RunsTable> {
  const { lifted } = row;
  return {
    id: row.id,
    job_id: row.jobId,
    record: row.record,
    record_format: row.recordFormat,
    decode_error: row.decodeError,
    events: row.events,
    state: lifted.state,
    started_at: lifted.startedAt,
    finished_at: lifted.finishedAt,
    test_case_slug: lifted.testCaseSlug,
    test_case_version: lifted.testCaseVersion,
    version_rank: lifted.versionRank,
    variant: lifted.variant,
    harness: lifted.harness,
    model_id: lifted.modelId,
    engine: lifted.engine,
    test_type: lifted.testType,
    gg_config_id: lifted.ggConfigId,
    gg_config_name: lifted.ggConfigName,
    gg_models: lifted.ggModels,
    run_time_seconds: lifted.runTimeSeconds,
    tokens_total: lifted.tokensTotal,
    cost: lifted.cost,
    summary: JSON.stringify(lifted.summary),
    validator_verdicts: JSON.stringify(lifted.validatorVerdicts),
    link_source_repo: lifted.sourceRepo,
    link_playable_build: lifted.playableBuild,
    validation_loaded: lifted.summary.validationLoaded === false ? 0 : 1,
    created_at: now,
    updated_at: now,
  };
}

/** What a re-push replaces: everything lifted from the record, not publication, links set by a release, or reviews. */
const REPLACED_COLUMNS = [
  'job_id', 'record', 'record_format', 'decode_error', 'events', 'state', 'started_at', 'finished_at', 'test_case_slug', 'test_case_version',
  'version_rank', 'variant', 'harness', 'model_id', 'engine', 'test_type', 'gg_config_id', 'gg_config_name', 'gg_models', 'run_time_seconds',
  'tokens_total', 'cost', 'summary', 'validator_verdicts', 'validation_loaded', 'updated_at',
] as const satisfies readonly (keyof RunsTable)[];

export interface StoredRun {
  id: string;
  jobId: string | null;
  record: string;
  recordFormat: number;
  decodeError: string | null;
  events: string;
  lifted: LiftedRun;
}

/**
 * The reads and writes of one run and its reviews, over the store or over a transaction a
 * caller opened (`within`), so a caller can make them part of a larger write.
 */
function runQueries(db: Kysely<StoreSchema>, engine: Engine) {
  const selectRun = (id: string) => db.selectFrom('runs').select(RUN_COLUMNS).where('id', '=', id);
  const selectListed = (id: string) => db.selectFrom('runs').select(LISTED_COLUMNS).where('id', '=', id);
  return {
    get: async (id: string): Promise<RunRow | null> => (await selectRun(id).executeTakeFirst()) ?? null,
    /** `get` without the record, which can be large: what grading and the listings need. */
    listed: async (id: string): Promise<ListedRow | null> => (await selectListed(id).executeTakeFirst()) ?? null,
    /** `listed` that also keeps the row from other writers until the caller's transaction ends. */
    getLocked: async (id: string): Promise<ListedRow | null> => (await lockedRows(engine, selectListed(id)).executeTakeFirst()) ?? null,
    /** The job that stored the run, or else uploaded its showcase media: undefined for a run no job did either for. */
    async owner(id: string): Promise<{ jobId: string | null } | undefined> {
      // A run not stored yet belongs to the job whose showcase uploads named it.
      const owners = await db
        .selectFrom('runs')
        .select(['job_id as jobId', sql<number>`0`.as('source')])
        .where('id', '=', id)
        .unionAll(db.selectFrom('showcase_uploads').select(['job_id as jobId', sql<number>`1`.as('source')]).where('run_id', '=', id))
        .orderBy('source')
        .limit(1)
        .execute();
      return owners[0] ? { jobId: owners[0].jobId } : undefined;
    },
    /** The stored events as JSON array text; null for an unknown or unreadable run. */
    events: async (id: string): Promise<string | null> =>
      (await db.selectFrom('runs').select('events').where('id', '=', id).where('decode_error', 'is', null).executeTakeFirst())?.events ?? null,
    remove: async (id: string): Promise<boolean> => (await db.deleteFrom('runs').where('id', '=', id).executeTakeFirst()).numDeletedRows > 0n,
    reviews: async (id: string): Promise<StoredReview[]> =>
      (await db.selectFrom('run_reviews').selectAll().where('run_id', '=', id).orderBy('reviewed_at').orderBy('reviewer_id').execute()).map(fromReviewRow),
    async putReview(runId: string, review: StoredReview): Promise<void> {
      await db
        .insertInto('run_reviews')
        .values({
          run_id: runId,
          reviewer_id: review.reviewerId,
          reviewer: review.reviewer,
          username: review.username,
          ratings: JSON.stringify(review.ratings),
          aesthetic: review.aesthetic,
          writeup: review.writeup,
          checklist: JSON.stringify(review.checklist),
          reviewed_at: review.reviewedAt,
          edited_at: review.editedAt,
          revisions: JSON.stringify(review.revisions),
        })
        .onConflict((oc) =>
          oc.columns(['run_id', 'reviewer_id']).doUpdateSet((eb) => ({
            reviewer: eb.ref('excluded.reviewer'),
            username: eb.ref('excluded.username'),
            ratings: eb.ref('excluded.ratings'),
            aesthetic: eb.ref('excluded.aesthetic'),
            writeup: eb.ref('excluded.writeup'),
            checklist: eb.ref('excluded.checklist'),
            edited_at: eb.ref('excluded.edited_at'),
            revisions: eb.ref('excluded.revisions'),
          })),
        )
        .execute();
    },
    /** The derived grade columns and each review's gate rank; atomic only inside the caller's transaction. */
    async setGrade(values: GradeColumns): Promise<void> {
      const { id, reviewRatingRanks } = values;
      await db
        .updateTable('runs')
        .set({
          review_count: values.reviewCount,
          aesthetic: values.aesthetic,
          aesthetic_rank: values.aestheticRank,
          rating_rank: values.ratingRank,
          validator_rated: values.validatorRated,
          grade: values.grade,
          grade_key: values.gradeKey,
          case_name: values.caseName,
          validator_rating_rank: values.validatorRatingRank,
        })
        .where('id', '=', id)
        .execute();
      for (const review of reviewRatingRanks) {
        await db.updateTable('run_reviews').set({ rating_rank: review.rank }).where('run_id', '=', id).where('reviewer_id', '=', review.reviewerId).execute();
      }
    },
    /** `runRows(store).store` without its own transaction: inside the caller's (`within`). */
    storeRun: (row: StoredRun): Promise<boolean> => storeRunIn(db, engine, row),
    async markPublished(values: { id: string; publishedAt: string; sourceRepo: string | null; playableBuild: string | null }): Promise<void> {
      await db
        .updateTable('runs')
        .set((eb) => ({
          published: 1,
          published_at: values.publishedAt,
          link_source_repo: eb.fn.coalesce(eb.val(values.sourceRepo), eb.ref('link_source_repo')),
          link_playable_build: eb.fn.coalesce(eb.val(values.playableBuild), eb.ref('link_playable_build')),
          updated_at: values.publishedAt,
        }))
        .where('id', '=', values.id)
        .execute();
    },
  };
}

/**
 * Stores a pushed run and what a gg run's summary lifts, over `trx`: the body of
 * `runRows(store).store`, for a caller that makes it part of a larger transaction (the
 * importer writes a batch of runs and their reviews as one).
 */
async function storeRunIn(trx: Kysely<StoreSchema>, engine: Engine, row: StoredRun): Promise<boolean> {
  // A showcase upload binding this run id meanwhile waits, or is seen below (`lockRunId`).
  await lockRunId(engine, row.id).execute(trx);
  // Another job's showcase uploads hold the run id (src/db/showcase-uploads-table.ts).
  const uploadedByOther = await trx
    .selectFrom('showcase_uploads')
    .select('job_id')
    .where('run_id', '=', row.id)
    .where((eb) => eb.not(sameValue(engine, eb.ref('job_id'), eb.val(row.jobId))))
    .executeTakeFirst();
  if (uploadedByOther) return false;
  const keptOnceReleased = (column: 'link_source_repo' | 'link_playable_build') =>
    sql<string | null>`CASE WHEN runs.published = 1 THEN COALESCE(runs.${sql.ref(column)}, excluded.${sql.ref(column)}) ELSE excluded.${sql.ref(column)} END`;
  const written = await trx
    .insertInto('runs')
    .values(runValues(row, new Date().toISOString()))
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet((eb) => ({
          ...Object.fromEntries(REPLACED_COLUMNS.map((column) => [column, eb.ref(`excluded.${column}`)])),
          link_source_repo: keptOnceReleased('link_source_repo'),
          link_playable_build: keptOnceReleased('link_playable_build'),
          grade_key: null,
        }))
        .where((eb) => sameValue(engine, eb.ref('runs.job_id'), eb.ref('excluded.job_id'))),
    )
    .executeTakeFirst();
  // Nothing changed: the run belongs to another job (see the upsert's WHERE).
  if (written.numInsertedOrUpdatedRows === 0n) return false;
  // A gg run's summary is lifted with the row, for the provider statistics.
  const { lifted } = row;
  const record = lifted.harness === 'gg' && row.decodeError === null ? (JSON.parse(row.record) as unknown) : null;
  await storeGgStats(trx, row.id, lifted.harness, lifted.modelId, record);
  return true;
}

export type RunQueries = ReturnType<typeof runQueries>;

/** The `runs` and `run_reviews` tables, one function per operation. */
export function runRows(store: BackendStore) {
  return {
    ...runQueries(store.db, store.engine),
    within: (trx: Kysely<StoreSchema>) => runQueries(trx, store.engine),
    /**
     * Writes one reviewer's review of a run as `compose` makes it from the review stored now
     * (undefined when there is none; null from `compose` writes nothing), in one write
     * transaction with the run's row locked: two edits of one review, from this process or
     * another, each build on the other, so neither's public revision is lost. What `compose`
     * throws rolls the transaction back. Null when the run is gone or unreadable.
     */
    writeReview: (runId: string, reviewerId: string, compose: (existing: StoredReview | undefined) => StoredReview | null) =>
      writeTransaction(store, async (trx): Promise<{ review: StoredReview; written: boolean } | null> => {
        const within = runQueries(trx, store.engine);
        const run = await within.getLocked(runId);
        if (!run || run.decode_error !== null) return null;
        const existing = (await within.reviews(runId)).find((review) => review.reviewerId === reviewerId);
        const review = compose(existing);
        if (!review) return { review: existing!, written: false };
        await within.putReview(runId, review);
        return { review, written: true };
      }),
    /**
     * Stores a pushed run and what a gg run's summary lifts, in one transaction. False when
     * the run exists under another job, which keeps it unchanged. A re-push under the same id
     * replaces the record and its lifted columns but keeps publication, links set by a release
     * and reviews: the run is the same run. Only the job that first stored the run (or
     * uploaded its media) may re-push it; the upsert's WHERE makes that one atomic statement.
     */
    store: (row: StoredRun): Promise<boolean> => writeTransaction(store, (trx) => storeRunIn(trx, store.engine, row)),
  };
}

export type RunRows = ReturnType<typeof runRows>;
