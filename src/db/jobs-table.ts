import { sql, type Kysely } from 'kysely';
import { boundRows, writeTransaction, type BackendStore, type BoundColumn, type Engine } from './dialect.js';
import type { StoreSchema } from './store-schema.js';
import { isTerminal, type JobState, type TerminalState } from '../queue/run-queue-types.js';

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

/** Every column of a row, as `JobRow` names them. */
const COLUMNS = [
  'seq', 'id', 'account_id as accountId', 'origin', 'test_case_slug as testCaseSlug', 'test_case_version as testCaseVersion',
  'variant', 'harness_slug as harnessSlug', 'model_id as modelId', 'provider', 'engine', 'test_type as testType',
  'gg_config_id as ggConfigId', 'gg_preset as ggPreset', 'request', 'state', 'token_hash as tokenHash', 'record_id as recordId',
  'detail', 'enqueued_at as enqueuedAt', 'dispatched_at as dispatchedAt', 'started_at as startedAt', 'finished_at as finishedAt',
] as const;

const ACTIVE_COLUMNS = [
  'seq', 'id', 'state', 'test_case_slug as testCaseSlug', 'test_case_version as testCaseVersion', 'variant',
  'harness_slug as harnessSlug', 'model_id as modelId', 'engine', 'gg_preset as ggPreset', 'origin', 'enqueued_at as enqueuedAt',
  'started_at as startedAt',
] as const;

/** What the active list (`GET /jobs/active`) shows of a job in flight. */
export type ActiveJobRow = Pick<JobRow, 'seq' | 'id' | 'state' | 'testCaseSlug' | 'testCaseVersion' | 'variant' | 'harnessSlug'
  | 'modelId' | 'engine' | 'ggPreset' | 'origin' | 'enqueuedAt' | 'startedAt'>;

/**
 * The condition of a job in flight (queued, pending, dispatched, starting or running) as the
 * partial in-flight indexes state it (migration 0080), for `jobs` under `table`: terminal
 * writes set `finished_at`, in-flight writes clear it, and a claim never writes it.
 */
export const inFlight = (table = 'jobs') => `${table}.finished_at IS NULL`;

/**
 * A state Redis decided for a job, as its row copies it: a waiting move, a driver's first
 * reports (`at`: when), or the outcome (`at`: when it finished).
 */
export type JobCopy = { id: string; state: 'queued' | 'pending' } | { id: string; state: 'starting' | 'running'; at: string } | FinishedCopy;
export type FinishedCopy = { id: string; state: TerminalState; detail: string | null; recordId: string | null; at: string };
export const isFinishedCopy = (copy: JobCopy): copy is FinishedCopy => isTerminal(copy.state);

/** A claim's copy in the store: the job by `seq`, its token's hash, and when Redis answered it. */
export interface DispatchedClaim {
  seq: number;
  tokenHash: string;
  at: string;
}

/** A claim batch's rows, bound whole as a few parameters (three arrays, or one JSON text): a batch needs no chunking. */
const CLAIM_COLUMNS: BoundColumn[] = [['seq', 'bigint'], ['token_hash', 'text'], ['dispatched_at', 'text']];

/** Bound parameters per statement, under both engines' limits (SQLite 32,766, PostgreSQL 65,535). */
const MAX_PARAMETERS = 30_000;
/** Columns an insert binds per row. */
const INSERT_COLUMNS = 17;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The `jobs` queries over a store; every write is one statement or one transaction. */
export function jobsTable(store: BackendStore): JobsTable {
  return tableOver(store.engine, store.db, (work) => writeTransaction(store, work));
}

type Transaction = <T>(work: (db: Kysely<StoreSchema>) => Promise<T>) => Promise<T>;

function tableOver(engine: Engine, db: Kysely<StoreSchema>, transaction: Transaction): JobsTable {
  return {
    ...jobsQueries(engine, db, transaction),
    batch: (work) => transaction((trx) => work(tableOver(engine, trx, (inner) => inner(trx)))),
  };
}

/**
 * The queries over `db`, the store or a transaction of it; `transaction` runs writes of
 * several statements as one (within a transaction already, it runs them in it).
 */
function jobsQueries(engine: Engine, db: Kysely<StoreSchema>, transaction: Transaction) {
  // A page of jobs in flight in queue order, after a `seq`; no limit reads to the end.
  const inFlightRow = sql<boolean>`${sql.raw(inFlight())}`;
  const inFlightPage = (after: number, limit: number | undefined) => {
    const page = db.selectFrom('jobs').where(inFlightRow).where('seq', '>', after).orderBy('seq');
    return limit === undefined ? page : page.limit(limit);
  };
  // Statements of at most MAX_PARAMETERS ids each, as one transaction when there are several.
  const byIds = async (ids: string[], write: (db: Kysely<StoreSchema>, ids: string[]) => Promise<unknown>) => {
    if (ids.length === 0) return;
    const parts = chunks(ids, MAX_PARAMETERS);
    if (parts.length === 1) await write(db, ids);
    else await transaction(async (trx) => { for (const part of parts) await write(trx, part); });
  };
  const dispatched = (claims: DispatchedClaim[]) =>
    sql`UPDATE jobs SET state = CASE WHEN jobs.state IN ('queued', 'pending') THEN 'dispatched' ELSE jobs.state END,
        token_hash = c.token_hash, dispatched_at = c.dispatched_at
      FROM ${boundRows(engine, 'c', CLAIM_COLUMNS, claims.map((claim) => [claim.seq, claim.tokenHash, claim.at]))}
      WHERE jobs.seq = c.seq`;
  // The forward-only writes: Redis decides every transition once, in order, but its copies
  // reach the store from several processes, retried, so one may land after a later one.
  const wait = (db: Kysely<StoreSchema>, ids: string[], state: 'queued' | 'pending') =>
    db.updateTable('jobs').set({ state }).where('id', 'in', ids).where(inFlightRow).where('state', 'in', ['queued', 'pending']).execute();
  const start = (db: Kysely<StoreSchema>, id: string, state: 'starting' | 'running', at: string) => {
    const update = db.updateTable('jobs').set({ state, started_at: sql<string>`COALESCE(started_at, ${at})` }).where('id', '=', id).where(inFlightRow);
    return (state === 'starting' ? update.where('state', '<>', 'running') : update).execute();
  };
  const finish = (db: Kysely<StoreSchema>, id: string, state: TerminalState, detail: string | null, recordId: string | null, at: string) =>
    db.updateTable('jobs')
      .set({ state, detail, record_id: sql<string | null>`COALESCE(${recordId}, record_id)`, finished_at: at })
      .where('id', '=', id).where(inFlightRow).execute();
  const finishAll = (db: Kysely<StoreSchema>, ids: string[], state: TerminalState, detail: string | null, at: string) =>
    db.updateTable('jobs').set({ state, detail, finished_at: at }).where('id', 'in', ids).where(inFlightRow).execute();

  return {
    /** Inserts new jobs in one transaction; returns each one's `seq` (enqueue order). */
    async insert(rows: NewJobRow[]): Promise<number[]> {
      if (rows.length === 0) return [];
      const values = rows.map((row) => ({
        id: row.id, account_id: row.accountId, origin: row.origin, test_case_slug: row.testCaseSlug,
        test_case_version: row.testCaseVersion, variant: row.variant, harness_slug: row.harnessSlug, model_id: row.modelId,
        provider: row.provider, engine: row.engine, test_type: row.testType, gg_config_id: row.ggConfigId,
        gg_preset: row.ggPreset, gg_models: row.ggModels ?? null, request: row.request, state: 'queued', enqueued_at: row.enqueuedAt,
      }));
      // By id: neither engine promises RETURNING's row order.
      const seqs = new Map<string, number>();
      await transaction(async (trx) => {
        for (const part of chunks(values, Math.floor(MAX_PARAMETERS / INSERT_COLUMNS))) {
          for (const { id, seq } of await trx.insertInto('jobs').values(part).returning(['id', 'seq']).execute()) seqs.set(id, seq);
        }
      });
      return rows.map((row) => seqs.get(row.id)!);
    },
    get: async (id: string): Promise<JobRow | null> =>
      ((await db.selectFrom('jobs').select(COLUMNS).where('id', '=', id).executeTakeFirst()) as JobRow | undefined) ?? null,
    /** undefined: no such job; null: not claimed yet. */
    tokenHash: async (id: string): Promise<string | null | undefined> =>
      (await db.selectFrom('jobs').select('token_hash').where('id', '=', id).executeTakeFirst())?.token_hash,
    /** Non-terminal jobs in queue order: every one, or a page of `limit` after `after` (a `seq`). */
    inFlight: async ({ after = Number.MIN_SAFE_INTEGER, limit }: { after?: number; limit?: number } = {}): Promise<JobRow[]> =>
      (await inFlightPage(after, limit).select(COLUMNS).execute()) as JobRow[],
    /** A page of `limit` non-terminal jobs after `after` (a `seq`; default the first) in queue order, with only what the active list shows of them. */
    activeList: async ({ after = Number.MIN_SAFE_INTEGER, limit }: { after?: number; limit: number }): Promise<ActiveJobRow[]> =>
      (await inFlightPage(after, limit).select(ACTIVE_COLUMNS).execute()) as ActiveJobRow[],
    /**
     * Claims, many at once, in one statement. By `seq`, the row's key: the claim's hot path
     * skips the id index, and it writes no column an index reads, so no index entry changes.
     * Claims are written behind their answer, so a driver's report (or a cancel) may have
     * moved the row on already: only a waiting row becomes `dispatched`; the token and time
     * are written anyway.
     */
    async markAllDispatched(claims: DispatchedClaim[]): Promise<void> {
      if (claims.length > 0) await dispatched(claims).execute(db);
    },
    /**
     * `markAllDispatched`'s statement compiled, for a connection that runs no query builder
     * (the SQLite claim writer thread prepares it on its own). The claims are bound as a fixed
     * number of parameters, so every batch's statement has the same text.
     */
    dispatchedStatement: (claims: DispatchedClaim[]): { sql: string; parameters: readonly unknown[] } => {
      const { sql, parameters } = dispatched(claims).compile(db);
      return { sql, parameters };
    },
    /** queued <-> pending moves, many at once; a row that has moved on (claimed, started, finished) keeps its state. */
    markWaiting: (ids: string[], state: 'queued' | 'pending'): Promise<void> => byIds(ids, (db, part) => wait(db, part, state)),
    /** A driver's first reports; a finished row, or a running one told `starting`, keeps its state. */
    markStarted: async (id: string, state: 'starting' | 'running', at: string): Promise<void> => {
      await start(db, id, state, at);
    },
    /** Ends a row in flight; a row that has finished already keeps its outcome. */
    markFinished: async (id: string, state: TerminalState, detail: string | null, recordId: string | null, at: string): Promise<void> => {
      await finish(db, id, state, detail, recordId, at);
    },
    markAllFinished: (ids: string[], state: TerminalState, detail: string | null, at: string): Promise<void> =>
      byIds(ids, (db, part) => finishAll(db, part, state, detail, at)),
    /**
     * Writes copies of the states Redis decided, many jobs' at once, in one transaction (see
     * src/jobs/job-state-copier.ts). Every write moves a row forward only, so copies that land
     * late or out of order, from this process or another, never undo a later one.
     */
    async copyStates(copies: readonly JobCopy[]): Promise<void> {
      if (copies.length === 0) return;
      await transaction(async (trx) => {
        const waiting = { queued: [] as string[], pending: [] as string[] };
        // Finished jobs alike but for their ids (a sweep's cancels) share one statement.
        const finishedAlike = new Map<string, { ids: string[]; state: TerminalState; detail: string | null; at: string }>();
        for (const copy of copies) {
          if (isFinishedCopy(copy)) {
            if (copy.recordId !== null) await finish(trx, copy.id, copy.state, copy.detail, copy.recordId, copy.at);
            else {
              const key = JSON.stringify([copy.state, copy.detail, copy.at]);
              const alike = finishedAlike.get(key) ?? { ids: [], state: copy.state, detail: copy.detail, at: copy.at };
              alike.ids.push(copy.id);
              finishedAlike.set(key, alike);
            }
          } else if ('at' in copy) await start(trx, copy.id, copy.state, copy.at);
          else waiting[copy.state].push(copy.id);
        }
        for (const state of ['queued', 'pending'] as const) for (const part of chunks(waiting[state], MAX_PARAMETERS)) await wait(trx, part, state);
        for (const { ids, state, detail, at } of finishedAlike.values()) for (const part of chunks(ids, MAX_PARAMETERS)) await finishAll(trx, part, state, detail, at);
      });
    },
    attachRecord: async (id: string, recordId: string): Promise<void> => {
      await db.updateTable('jobs').set({ record_id: recordId }).where('id', '=', id).execute();
    },
  };
}

export interface JobsTable extends ReturnType<typeof jobsQueries> {
  /**
   * Runs `work`'s writes, made through the table it is handed, as one transaction (one
   * commit for many jobs' moves). `work` awaits only that table's queries (see
   * `writeTransaction`).
   */
  batch<T>(work: (jobs: JobsTable) => Promise<T>): Promise<T>;
}
