import { randomUUID } from 'node:crypto';
import type { Database } from '../db/open-database.js';
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

/** The `publish_jobs` table; `claim` is the atomic check-and-insert that keeps one live job per run. */
export function publishJobs(db: Database) {
  const selectOne = db.prepare<[string], Row>('SELECT * FROM publish_jobs WHERE id = ?');
  const selectLive = db.prepare<[string], Row>("SELECT * FROM publish_jobs WHERE run_id = ? AND state = 'live'");
  const selectAllLive = db.prepare<[], Row>("SELECT * FROM publish_jobs WHERE state = 'live' ORDER BY created_ms");
  const selectLatestSucceeded = db.prepare<[string], Row>(
    "SELECT * FROM publish_jobs WHERE run_id = ? AND state = 'succeeded' ORDER BY created_ms DESC LIMIT 1",
  );
  const insert = db.prepare("INSERT INTO publish_jobs (id, run_id, state, created_ms, updated_at) VALUES (?, ?, 'live', ?, ?)");
  const finish = db.prepare(
    "UPDATE publish_jobs SET state = @state, detail = @detail, source_repo = @sourceRepo, playable_build = @playableBuild, updated_at = @now WHERE id = @id AND state = 'live'",
  );

  const markFinished = (id: string, state: 'succeeded' | 'failed', values: { detail?: string | null; sourceRepo?: string | null; playableBuild?: string | null }) =>
    finish.run({ id, state, detail: values.detail ?? null, sourceRepo: values.sourceRepo ?? null, playableBuild: values.playableBuild ?? null, now: new Date().toISOString() })
      .changes > 0;

  // IMMEDIATE takes the write lock before the read, so two processes cannot both see "no live job".
  const claimTransaction = db.transaction((runId: string, now: number): { job: PublishJob; created: boolean } => {
    const live = selectLive.get(runId);
    if (live && now - live.created_ms < STALE_PUBLISH_JOB) return { job: fromRow(live), created: false };
    if (live) markFinished(live.id, 'failed', { detail: 'The publisher did not finish within an hour; a new publish job replaced it.' });
    const id = randomUUID();
    insert.run(id, runId, now, new Date(now).toISOString());
    return { job: fromRow(selectOne.get(id)!), created: true };
  });

  return {
    get: (id: string) => {
      const row = selectOne.get(id);
      return row ? fromRow(row) : null;
    },
    latestSucceeded: (runId: string) => {
      const row = selectLatestSucceeded.get(runId);
      return row ? fromRow(row) : null;
    },
    claim: (runId: string, now = Date.now()) => claimTransaction.immediate(runId, now),
    /** Every job still live (one per run at most), oldest first. */
    live: () => selectAllLive.all().map(fromRow),
    markFinished,
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
