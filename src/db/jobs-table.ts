import type { Database } from './open-database.js';
import type { JobState, TerminalState } from '../queue/run-queue.js';

/** A run job as the `jobs` table keeps it. */
export interface JobRow {
  seq: number;
  id: string;
  accountId: string;
  origin: string | null;
  testCaseSlug: string;
  testCaseVersion: string;
  variant: string;
  harnessSlug: string;
  modelId: string;
  provider: string | null;
  engine: string | null;
  testType: string;
  ggConfigId: string | null;
  ggPreset: string | null;
  request: string;
  state: JobState;
  tokenHash: string | null;
  recordId: string | null;
  detail: string | null;
  enqueuedAt: string;
  dispatchedAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export type NewJobRow = Omit<JobRow, 'seq' | 'state' | 'tokenHash' | 'recordId' | 'detail' | 'dispatchedAt' | 'startedAt' | 'finishedAt'> & {
  /** A gg job's bound models as `boundModelKey` writes them (its coverage cell), else null. */
  ggModels?: string | null;
};

const COLUMNS = `seq, id, account_id AS accountId, origin, test_case_slug AS testCaseSlug,
  test_case_version AS testCaseVersion, variant, harness_slug AS harnessSlug, model_id AS modelId,
  provider, engine, test_type AS testType, gg_config_id AS ggConfigId, gg_preset AS ggPreset, request,
  state, token_hash AS tokenHash, record_id AS recordId, detail, enqueued_at AS enqueuedAt,
  dispatched_at AS dispatchedAt, started_at AS startedAt, finished_at AS finishedAt`;

/** What the active list (`GET /jobs/active`) shows of a job in flight. */
export type ActiveJobRow = Pick<JobRow, 'seq' | 'id' | 'state' | 'testCaseSlug' | 'testCaseVersion' | 'variant' | 'harnessSlug'
  | 'modelId' | 'engine' | 'ggPreset' | 'origin' | 'enqueuedAt' | 'startedAt'>;

/**
 * The condition of a job in flight (queued, pending, dispatched, starting or running) as the
 * partial in-flight indexes state it (migration 0080), for `jobs` under `table`: terminal
 * writes set `finished_at`, in-flight writes clear it, and a claim never writes it.
 */
export const inFlight = (table = 'jobs') => `${table}.finished_at IS NULL`;

/** Prepared statements over `jobs`; every write is one statement or one transaction. */
export function jobsTable(db: Database) {
  const insert = db.prepare(
    `INSERT INTO jobs (id, account_id, origin, test_case_slug, test_case_version, variant, harness_slug, model_id,
       provider, engine, test_type, gg_config_id, gg_preset, gg_models, request, state, enqueued_at)
     VALUES (@id, @accountId, @origin, @testCaseSlug, @testCaseVersion, @variant, @harnessSlug, @modelId,
       @provider, @engine, @testType, @ggConfigId, @ggPreset, @ggModels, @request, 'queued', @enqueuedAt)`,
  );
  const insertAll = db.transaction((rows: NewJobRow[]) => rows.map((row) => Number(insert.run({ ggModels: null, ...row }).lastInsertRowid)));
  const byId = db.prepare<[string], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`);
  const tokenOf = db.prepare<[string], string | null>('SELECT token_hash FROM jobs WHERE id = ?').pluck();
  // A page of jobs in flight in queue order, after a `seq`.
  const inFlightPage = <Row>(columns: string) =>
    db.prepare<[number, number], Row>(`SELECT ${columns} FROM jobs WHERE ${inFlight()} AND seq > ? ORDER BY seq LIMIT ?`);
  const inFlightRows = inFlightPage<JobRow>(COLUMNS);
  const activeRows = inFlightPage<ActiveJobRow>(`seq, id, state, test_case_slug AS testCaseSlug, test_case_version AS testCaseVersion,
    variant, harness_slug AS harnessSlug, model_id AS modelId, engine, gg_preset AS ggPreset, origin, enqueued_at AS enqueuedAt,
    started_at AS startedAt`);
  // By `seq`, the row's key: the claim's hot path skips the id index, and it writes no column
  // an index reads, so no index entry changes. Claims are written behind their answer, so a
  // driver's report (or a cancel) may have moved the row on already: only a waiting row
  // becomes `dispatched`; the token and time are written anyway.
  const dispatched = db.prepare<[string, string, number]>(
    `UPDATE jobs SET state = CASE WHEN state IN ('queued', 'pending') THEN 'dispatched' ELSE state END,
       token_hash = ?, dispatched_at = ? WHERE seq = ?`,
  );
  const waitingState = db.prepare<[JobState, string]>('UPDATE jobs SET state = ?, finished_at = NULL WHERE id = ?');
  const started = db.prepare<[JobState, string, string]>(
    'UPDATE jobs SET state = ?, started_at = COALESCE(started_at, ?), finished_at = NULL WHERE id = ?',
  );
  const finished = db.prepare<[TerminalState, string | null, string | null, string, string]>(
    'UPDATE jobs SET state = ?, detail = ?, record_id = COALESCE(?, record_id), finished_at = COALESCE(finished_at, ?) WHERE id = ?',
  );
  const attachRecord = db.prepare<[string, string]>('UPDATE jobs SET record_id = ? WHERE id = ?');
  const setStates = db.transaction((ids: string[], state: JobState) => {
    for (const id of ids) waitingState.run(state, id);
  });
  const dispatchAll = db.transaction((claims: Array<{ seq: number; tokenHash: string; at: string }>) => {
    for (const claim of claims) dispatched.run(claim.tokenHash, claim.at, claim.seq);
  });
  const finishAll = db.transaction((ids: string[], state: TerminalState, detail: string | null, at: string) => {
    for (const id of ids) finished.run(state, detail, null, at, id);
  });

  return {
    /** Inserts new jobs in one transaction; returns each one's `seq` (enqueue order). */
    insert: (rows: NewJobRow[]): number[] => insertAll(rows),
    get: (id: string): JobRow | null => byId.get(id) ?? null,
    /** undefined: no such job; null: not claimed yet. */
    tokenHash: (id: string): string | null | undefined => tokenOf.get(id),
    /** Non-terminal jobs in queue order: every one, or a page of `limit` after `after` (a `seq`). */
    inFlight: ({ after = Number.MIN_SAFE_INTEGER, limit = -1 }: { after?: number; limit?: number } = {}): JobRow[] => inFlightRows.all(after, limit),
    /** A page of `limit` non-terminal jobs after `after` (a `seq`; default the first) in queue order, with only what the active list shows of them. */
    activeList: ({ after = Number.MIN_SAFE_INTEGER, limit }: { after?: number; limit: number }): ActiveJobRow[] => activeRows.all(after, limit),
    /** Claims, many at once, each with its token's hash and time. */
    markAllDispatched: (claims: Array<{ seq: number; tokenHash: string; at: string }>) => void dispatchAll(claims),
    /** queued <-> pending moves, many at once. */
    markWaiting: (ids: string[], state: 'queued' | 'pending') => void (ids.length > 0 && setStates(ids, state)),
    markStarted: (id: string, state: 'starting' | 'running', at: string) => void started.run(state, at, id),
    markFinished: (id: string, state: TerminalState, detail: string | null, recordId: string | null, at: string) =>
      void finished.run(state, detail, recordId, at, id),
    markAllFinished: (ids: string[], state: TerminalState, detail: string | null, at: string) =>
      void (ids.length > 0 && finishAll(ids, state, detail, at)),
    attachRecord: (id: string, recordId: string) => void attachRecord.run(recordId, id),
    /** Runs `work`'s writes as one transaction (one commit for many jobs' moves). */
    batch: <T>(work: () => T): T => db.transaction(work)(),
  };
}

export type JobsTable = ReturnType<typeof jobsTable>;
