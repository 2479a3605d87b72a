import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { writeTransaction, type BackendStore } from '../db/dialect.js';
import type { StoreSchema } from '../db/store-schema.js';
import { HOUR } from '../time.js';
import type { PublishLine } from './publish-live.js';
import type { RunRow } from './run-rows.js';
import { FAILURE_TIERS, type RunState } from './run-states.js';

/** A live publish job whose publisher died stops blocking a new one after this long (ms). */
export const STALE_PUBLISH_JOB = HOUR;

export interface PublishJob {
  id: string;
  runId: string;
  state: 'live' | 'succeeded' | 'failed';
  detail: string | null;
  sourceRepo: string | null;
  playableBuild: string | null;
  createdMs: number;
}

interface Row {
  id: string;
  run_id: string;
  state: PublishJob['state'];
  detail: string | null;
  source_repo: string | null;
  playable_build: string | null;
  created_ms: number;
}

const fromRow = (row: Row): PublishJob => ({
  id: row.id,
  runId: row.run_id,
  state: row.state,
  detail: row.detail,
  sourceRepo: row.source_repo,
  playableBuild: row.playable_build,
  createdMs: row.created_ms,
});

/** Why the publish gate refuses a run now, or null when it admits it (http-interface.md, Publication). */
export function publishGateRefusal(row: RunRow): string | null {
  const state = row.state as RunState;
  if (state === 'infrastructure') return `Run ${row.id} is an infrastructure failure, which is never publishable.`;
  if (state === 'canceled') return `Run ${row.id} was canceled, and a canceled run is never publishable.`;
  if (FAILURE_TIERS.includes(state)) return null;
  if (state === 'completed') {
    if (row.validator_rated === 1 || row.review_count > 0) return null;
    return `Run ${row.id} is a completed legacy run with no review: it needs at least one review before it can be published.`;
  }
  return `Run ${row.id} is in state "${row.state}", which is not publishable.`;
}

/** Why a job ends; undefined and null both leave a column empty. */
interface Outcome {
  detail?: string | null;
  sourceRepo?: string | null;
  playableBuild?: string | null;
}

/** The job reads and writes, over the store or over a transaction a caller opened (`within`). */
function publishJobQueries(db: Kysely<StoreSchema>) {
  const one = async (query: Promise<Row | undefined>) => {
    const row = await query;
    return row ? fromRow(row) : null;
  };
  return {
    get: (id: string) => one(db.selectFrom('publish_jobs').selectAll().where('id', '=', id).$narrowType<Row>().executeTakeFirst()),
    liveOf: (runId: string) =>
      one(db.selectFrom('publish_jobs').selectAll().where('run_id', '=', runId).where('state', '=', 'live').$narrowType<Row>().executeTakeFirst()),
    latestSucceeded: (runId: string) =>
      one(
        db
          .selectFrom('publish_jobs')
          .selectAll()
          .where('run_id', '=', runId)
          .where('state', '=', 'succeeded')
          .orderBy('created_ms', 'desc')
          .orderBy('id', 'desc')
          .limit(1)
          .$narrowType<Row>()
          .executeTakeFirst(),
      ),
    /** Ends a live job; false when it had ended already. */
    async markFinished(id: string, state: 'succeeded' | 'failed', values: Outcome): Promise<boolean> {
      const result = await db
        .updateTable('publish_jobs')
        .set({
          state,
          detail: values.detail ?? null,
          source_repo: values.sourceRepo ?? null,
          playable_build: values.playableBuild ?? null,
          updated_at: new Date().toISOString(),
        })
        .where('id', '=', id)
        .where('state', '=', 'live')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}

/** The `publish_jobs` table; `claim` is the atomic check-and-insert that keeps one live job per run. */
export function publishJobs(store: BackendStore) {
  const queries = publishJobQueries(store.db);

  return {
    get: queries.get,
    latestSucceeded: queries.latestSucceeded,
    markFinished: queries.markFinished,
    within: publishJobQueries,
    /**
     * The run's live job, or a new one when there is none (or only a stale one, which is
     * failed). One transaction; the partial unique index `publish_jobs_one_live` settles two
     * claims that both saw no live job (possible on PostgreSQL, whose BEGIN locks no absent
     * row): the second inserts nothing and answers the first's job.
     */
    claim: (runId: string, now = Date.now()): Promise<{ job: PublishJob; created: boolean }> =>
      writeTransaction(store, async (trx) => {
        const jobs = publishJobQueries(trx);
        const live = await jobs.liveOf(runId);
        if (live && now - live.createdMs < STALE_PUBLISH_JOB) return { job: live, created: false };
        if (live) await jobs.markFinished(live.id, 'failed', { detail: 'The publisher did not finish within an hour; a new publish job replaced it.' });
        const id = randomUUID();
        // The conflict target names the partial index, whose predicate must be spelled as a literal to match it.
        const inserted = await trx
          .insertInto('publish_jobs')
          .values({ id, run_id: runId, state: 'live', created_ms: now, updated_at: new Date(now).toISOString() })
          .onConflict((oc) => oc.column('run_id').where('state', '=', sql.lit('live')).doNothing())
          .executeTakeFirst();
        if (inserted.numInsertedOrUpdatedRows === 0n) return { job: (await jobs.liveOf(runId))!, created: false };
        return { job: (await jobs.get(id))!, created: true };
      }),
    /** Every job still live (one per run at most), oldest first. */
    live: async () =>
      (await store.db.selectFrom('publish_jobs').selectAll().where('state', '=', 'live').orderBy('created_ms').orderBy('id').$narrowType<Row>().execute()).map(fromRow),
    /** The result line a finished job's live stream ends with, rebuilt from its row. */
    resultOf(job: PublishJob): PublishLine | null {
      if (job.state === 'live') return null;
      if (job.state === 'failed') return { type: 'result', state: 'failed', detail: job.detail ?? 'The publish failed.' };
      return {
        type: 'result',
        state: 'succeeded',
        ...(job.sourceRepo ? { sourceRepo: job.sourceRepo } : {}),
        ...(job.playableBuild ? { playableBuild: job.playableBuild } : {}),
      };
    },
  };
}

export type PublishJobs = ReturnType<typeof publishJobs>;
