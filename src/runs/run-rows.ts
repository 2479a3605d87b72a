import type { Database } from '../db/open-database.js';
import { ggStatsRows } from '../stats/gg-stats-rows.js';
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

export const LISTED_COLUMNS = `id, record_format, decode_error, state, published, published_at, started_at, finished_at,
  test_case_slug, test_case_version, variant, harness, model_id, engine, test_type, gg_config_id, gg_config_name,
  summary, validator_verdicts, link_source_repo, link_playable_build, review_count, validator_rated, grade, grade_key, case_name`;

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

/** The `runs` and `run_reviews` tables: prepared once, one function per operation. */
export function runRows(db: Database) {
  // A re-push under the same id replaces the record and its lifted columns but keeps
  // publication, links set by a release and reviews: the run is the same run. Only the job
  // that first stored the run (or uploaded its media) may re-push it; the WHERE makes that
  // one atomic statement.
  const upsert = db.prepare(
    `INSERT INTO runs (id, job_id, record, record_format, decode_error, events, state, started_at, finished_at,
        test_case_slug, test_case_version, version_rank, variant, harness, model_id, engine, test_type, gg_config_id,
        gg_config_name, gg_models, run_time_seconds, tokens_total, cost, summary, validator_verdicts, link_source_repo, link_playable_build,
        validation_loaded, created_at, updated_at)
     VALUES (@id, @jobId, @record, @recordFormat, @decodeError, @events, @state, @startedAt, @finishedAt,
        @testCaseSlug, @testCaseVersion, @versionRank, @variant, @harness, @modelId, @engine, @testType, @ggConfigId,
        @ggConfigName, @ggModels, @runTimeSeconds, @tokensTotal, @cost, @summary, @validatorVerdicts, @sourceRepo, @playableBuild, @validationLoaded, @now, @now)
     ON CONFLICT (id) DO UPDATE SET job_id = excluded.job_id, record = excluded.record, record_format = excluded.record_format,
        decode_error = excluded.decode_error, events = excluded.events, state = excluded.state, started_at = excluded.started_at,
        finished_at = excluded.finished_at, test_case_slug = excluded.test_case_slug, test_case_version = excluded.test_case_version,
        version_rank = excluded.version_rank, variant = excluded.variant, harness = excluded.harness, model_id = excluded.model_id,
        engine = excluded.engine, test_type = excluded.test_type, gg_config_id = excluded.gg_config_id,
        gg_config_name = excluded.gg_config_name, gg_models = excluded.gg_models, run_time_seconds = excluded.run_time_seconds, tokens_total = excluded.tokens_total,
        cost = excluded.cost, summary = excluded.summary, validator_verdicts = excluded.validator_verdicts,
        validation_loaded = excluded.validation_loaded,
        link_source_repo = CASE WHEN runs.published = 1 THEN COALESCE(runs.link_source_repo, excluded.link_source_repo) ELSE excluded.link_source_repo END,
        link_playable_build = CASE WHEN runs.published = 1 THEN COALESCE(runs.link_playable_build, excluded.link_playable_build) ELSE excluded.link_playable_build END,
        grade_key = NULL, updated_at = excluded.updated_at
     WHERE runs.job_id IS excluded.job_id`,
  );
  // A gg run's summary is lifted with the row, in one transaction, for the provider statistics.
  const ggStats = ggStatsRows(db);
  // Another job's showcase uploads hold the run id (src/db/showcase-uploads-table.ts).
  const uploadedByOther = db.prepare<[string, string | null]>('SELECT 1 FROM showcase_uploads WHERE run_id = ? AND job_id IS NOT ?').pluck();
  const writeRun = db.transaction((params: Record<string, unknown>): boolean => {
    if (uploadedByOther.get(params.id as string, params.jobId as string | null)) return false;
    // Nothing changed: the run belongs to another job (see the upsert's WHERE).
    if (upsert.run(params).changes === 0) return false;
    const record = params.harness === 'gg' && params.decodeError === null ? (JSON.parse(params.record as string) as unknown) : null;
    ggStats.store(params.id as string, params.harness as string, params.modelId as string, record);
    return true;
  });
  const selectOne = db.prepare<[string], RunRow>(`SELECT ${LISTED_COLUMNS}, record FROM runs WHERE id = ?`);
  // A run not stored yet belongs to the job whose showcase uploads named it.
  const selectOwner = db.prepare<[string, string], { jobId: string | null }>(
    'SELECT job_id AS jobId FROM runs WHERE id = ? UNION ALL SELECT job_id FROM showcase_uploads WHERE run_id = ? LIMIT 1',
  );
  const selectEvents = db.prepare<[string], { events: string }>('SELECT events FROM runs WHERE id = ? AND decode_error IS NULL');
  const remove = db.prepare<[string]>('DELETE FROM runs WHERE id = ?');
  const selectReviews = db.prepare<[string], ReviewRow>('SELECT * FROM run_reviews WHERE run_id = ? ORDER BY reviewed_at, reviewer_id');
  const upsertReview = db.prepare(
    `INSERT INTO run_reviews (run_id, reviewer_id, reviewer, username, ratings, aesthetic, writeup, checklist, reviewed_at, edited_at, revisions)
     VALUES (@runId, @reviewerId, @reviewer, @username, @ratings, @aesthetic, @writeup, @checklist, @reviewedAt, @editedAt, @revisions)
     ON CONFLICT (run_id, reviewer_id) DO UPDATE SET reviewer = excluded.reviewer, username = excluded.username,
       ratings = excluded.ratings, aesthetic = excluded.aesthetic, writeup = excluded.writeup, checklist = excluded.checklist,
       edited_at = excluded.edited_at, revisions = excluded.revisions`,
  );
  const updateGrade = db.prepare(
    `UPDATE runs SET review_count = @reviewCount, aesthetic = @aesthetic, aesthetic_rank = @aestheticRank, rating_rank = @ratingRank,
       validator_rated = @validatorRated, grade = @grade, grade_key = @gradeKey, case_name = @caseName,
       validator_rating_rank = @validatorRatingRank WHERE id = @id`,
  );
  const updateReviewRank = db.prepare<[number | null, string, string]>('UPDATE run_reviews SET rating_rank = ? WHERE run_id = ? AND reviewer_id = ?');
  const setGrade = db.transaction((values: GradeColumns) => {
    const { reviewRatingRanks, ...columns } = values;
    updateGrade.run(columns);
    for (const review of reviewRatingRanks) updateReviewRank.run(review.rank, values.id, review.reviewerId);
  });
  const markPublished = db.prepare(
    `UPDATE runs SET published = 1, published_at = @publishedAt, link_source_repo = COALESCE(@sourceRepo, link_source_repo),
       link_playable_build = COALESCE(@playableBuild, link_playable_build), updated_at = @publishedAt WHERE id = @id`,
  );

  return {
    /** False when the run exists under another job, which keeps it unchanged. */
    store(row: { jobId: string | null; record: string; recordFormat: number; decodeError: string | null; events: string; lifted: LiftedRun; id: string }): boolean {
      const { lifted } = row;
      return writeRun({
        id: row.id,
        jobId: row.jobId,
        record: row.record,
        recordFormat: row.recordFormat,
        decodeError: row.decodeError,
        events: row.events,
        state: lifted.state,
        startedAt: lifted.startedAt,
        finishedAt: lifted.finishedAt,
        testCaseSlug: lifted.testCaseSlug,
        testCaseVersion: lifted.testCaseVersion,
        versionRank: lifted.versionRank,
        variant: lifted.variant,
        harness: lifted.harness,
        modelId: lifted.modelId,
        engine: lifted.engine,
        testType: lifted.testType,
        ggConfigId: lifted.ggConfigId,
        ggConfigName: lifted.ggConfigName,
        ggModels: lifted.ggModels,
        runTimeSeconds: lifted.runTimeSeconds,
        tokensTotal: lifted.tokensTotal,
        cost: lifted.cost,
        summary: JSON.stringify(lifted.summary),
        validatorVerdicts: JSON.stringify(lifted.validatorVerdicts),
        sourceRepo: lifted.sourceRepo,
        playableBuild: lifted.playableBuild,
        validationLoaded: lifted.summary.validationLoaded === false ? 0 : 1,
        now: new Date().toISOString(),
      });
    },
    get: (id: string): RunRow | null => selectOne.get(id) ?? null,
    /** The job that stored the run, or else uploaded its showcase media: undefined for a run no job did either for. */
    owner: (id: string): { jobId: string | null } | undefined => selectOwner.get(id, id),
    /** The stored events as JSON array text; null for an unknown or unreadable run. */
    events: (id: string): string | null => selectEvents.get(id)?.events ?? null,
    remove: (id: string) => remove.run(id).changes > 0,
    reviews: (id: string): StoredReview[] => selectReviews.all(id).map(fromReviewRow),
    putReview(runId: string, review: StoredReview) {
      upsertReview.run({
        runId,
        ...review,
        ratings: JSON.stringify(review.ratings),
        checklist: JSON.stringify(review.checklist),
        revisions: JSON.stringify(review.revisions),
      });
    },
    /** The derived grade columns and each review's gate rank, in one transaction. */
    setGrade: (values: GradeColumns) => void setGrade(values),
    markPublished: (values: { id: string; publishedAt: string; sourceRepo: string | null; playableBuild: string | null }) =>
      void markPublished.run(values),
  };
}

export type RunRows = ReturnType<typeof runRows>;
