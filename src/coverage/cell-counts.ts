/**
 * Cell counting (shared by plans and ladders), as a few grouped queries over a list of cells:
 * `completed` (stored runs in state completed, counted globally), `inFlight` and its
 * `pending` subset (non-terminal jobs, counted globally), `unreviewed` (completed runs the
 * requester has not reviewed; machine-graded test types never wait on a review), plus an
 * origin's jobs in flight (the other half of buffer occupancy) and the ordered review queue.
 *
 * A cell matches a run or job on case, version, variant, engine (a run without one is
 * `none`), harness and model (a provider-routed cell's `openrouter/<model>` or bare
 * `<model>`); a gg cell also on its configuration, taken from the job that produced the run
 * (else the record's own), and on the models bound to its agents, taken from that job (else
 * the capability set the record carries). A run or job that says neither counts in no
 * binding's cell, as in the original (entities run.rs `gg_models`: NULL is the empty
 * segment, which no gg member's cell carries). A plan's gg runs and a hand launch from the
 * same configuration and models share the cell. Provider does not split cells otherwise:
 * runs do not record it.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
import { boundOuterRows, indexedBy, type BackendStore, type BoundColumn, type Engine } from '../db/dialect.js';
import { inFlight } from '../db/jobs-table.js';
import { AUTO_GRADED_TEST_TYPES } from '../runs/run-states.js';
import type { CoverageCell } from './coverage-cells.js';

/** A capped harness's parallelism cap and its jobs in flight (every origin's); an uncapped harness has no entry. */
export type HarnessLoad = Map<string, { cap: number; inFlight: number }>;

export interface CellCounts {
  completed: number;
  inFlight: number;
  pending: number;
  unreviewed: number;
}

/** The machine-graded test types as an SQL list, for `NOT IN (...)`. */
export const AUTO_GRADED = sql.raw(AUTO_GRADED_TEST_TYPES.map((type) => `'${type}'`).join(', '));
/** A run's gg configuration row id: its job's, else the record's (`saved:` stripped). */
const RUN_GG = sql<string | null>`COALESCE((SELECT j.gg_config_id FROM jobs AS j WHERE j.id = r.job_id),
  CASE WHEN r.gg_config_id LIKE 'saved:%' THEN substr(r.gg_config_id, 7) ELSE r.gg_config_id END)`;
/** The bound models of a run `r`: its job's, else its record's (null when neither says). */
const RUN_GG_MODELS = sql<string | null>`COALESCE((SELECT j.gg_models FROM jobs AS j WHERE j.id = r.job_id), r.gg_models)`;
/** A cell's fields a run or job matches on besides its model: `gg` its gg configuration row id and `ggModels` its bound models, each null for any. */
type CellField = 'slug' | 'version' | 'variant' | 'engine' | 'harness' | 'gg' | 'ggModels';
/** The SQL that reads a cell's field (as text, null for any). */
export type CellFields = (name: CellField) => RawBuilder<string | null>;
/** A completed run `r` in the cell whose fields `field` gives, its model matched by `model` (a condition on `r.model_id`). */
export const completedInCell = (field: CellFields, model: RawBuilder<boolean>) =>
  sql<boolean>`r.test_case_slug = ${field('slug')} AND r.test_case_version = ${field('version')} AND r.variant = ${field('variant')}
   AND r.engine = ${field('engine')} AND r.harness = ${field('harness')} AND ${model}
   AND r.state = 'completed' AND r.decode_error IS NULL AND (${field('gg')} IS NULL OR ${RUN_GG} = ${field('gg')})
   AND (${field('ggModels')} IS NULL OR ${RUN_GG_MODELS} = ${field('ggModels')})`;

/**
 * The cells as the grouped queries take them: one row per cell and model id its runs may
 * record (two for a provider-routed cell, `openrouter/<model>` and `<model>`), so the model
 * is a join key like the rest and PostgreSQL hashes or index-joins on all of them; `cell` is
 * the cell's index. A run records one id, so it meets a cell in one row at most.
 */
export type CellRow = [cell: number, slug: string, version: string, variant: string, engine: string, harness: string, model: string,
  gg: string | null, ggModels: string | null];
const CELL_COLUMNS: readonly BoundColumn[] = [['cell', 'bigint'], ['slug', 'text'], ['version', 'text'], ['variant', 'text'], ['engine', 'text'],
  ['harness', 'text'], ['model', 'text'], ['gg', 'text'], ['gg_models', 'text']];
/** The cells as rows `c` of typed columns: the outer loop of the grouped queries. */
export const cellRows = (engine: Engine, cells: readonly CellRow[]) => boundOuterRows(engine, 'c', CELL_COLUMNS, cells);
/** A field of the cell row `c` being joined. */
export const cellRowField: CellFields = (name) => sql.ref<string | null>(`c.${name === 'ggModels' ? 'gg_models' : name}`);
/** A completed run `r` in the cell row `c`. */
export const completedInCellRow = completedInCell(cellRowField, sql<boolean>`r.model_id = c.model`);
const unreviewed = (reviewer: string) => sql<boolean>`COALESCE(r.test_type, '') NOT IN (${AUTO_GRADED})
  AND NOT EXISTS (SELECT 1 FROM run_reviews AS v WHERE v.run_id = r.id AND v.reviewer_id = ${reviewer})`;
/** 1 when the condition holds, else 0: what `SUM` counts on both engines (PostgreSQL cannot sum booleans). */
export const oneIf = (condition: RawBuilder<boolean>) => sql<number>`CASE WHEN ${condition} THEN 1 ELSE 0 END`;

/** The cells as `cellsParam` encodes them, and the requesting account. */
export interface CellCountArgs {
  cells: CellRow[];
  reviewer: string;
}

/** What the two count queries answer: a row per cell with any match, by its index. */
export interface CellCountRows {
  runs: Array<{ cell: number; completed: number; unreviewed: number }>;
  jobs: Array<{ cell: number; inFlight: number; pending: number }>;
}

// CROSS JOIN keeps the cells as the outer loop on SQLite (it has no statistics for bound rows),
// so each cell is one index range, whatever the number of runs and jobs; PostgreSQL, which
// knows the rows' number, index-joins or hashes on all six keys itself. The match sits in WHERE
// because PostgreSQL's CROSS JOIN takes no ON. These statements are Kysely `sql` templates, not
// the builder, because the builder spells neither that join order nor an index hint.
/** The statements the counts run, exported so the benchmark can time them raw. */
export const cellCountStatements = (engine: Engine, { cells, reviewer }: CellCountArgs) => ({
  runs: sql<CellCountRows['runs'][number]>`SELECT c.cell, COUNT(*) AS completed, SUM(${oneIf(unreviewed(reviewer))}) AS unreviewed
    FROM ${cellRows(engine, cells)} CROSS JOIN runs AS r ${indexedBy(engine, 'runs_cell')}
    WHERE ${completedInCellRow} GROUP BY c.cell`,
  jobs: sql<CellCountRows['jobs'][number]>`SELECT c.cell, COUNT(*) AS "inFlight", SUM(${oneIf(sql`j.state = 'pending'`)}) AS pending
    FROM ${cellRows(engine, cells)} CROSS JOIN jobs AS j ${indexedBy(engine, 'jobs_in_flight_cell')}
    WHERE j.test_case_slug = ${cellRowField('slug')} AND j.test_case_version = ${cellRowField('version')} AND j.variant = ${cellRowField('variant')}
      AND j.harness_slug = ${cellRowField('harness')} AND j.model_id = c.model
      AND ${sql.raw(inFlight('j'))} AND COALESCE(j.engine, 'none') = ${cellRowField('engine')}
      AND (${cellRowField('gg')} IS NULL OR j.gg_config_id = ${cellRowField('gg')})
      AND (${cellRowField('ggModels')} IS NULL OR j.gg_models = ${cellRowField('ggModels')})
    GROUP BY c.cell`,
});

/** The jobs in flight of one origin, exported so the benchmark can time it raw. */
export const originInFlightStatement = (engine: Engine, origin: string) =>
  sql<{ n: number }>`SELECT COUNT(*) AS n FROM jobs ${indexedBy(engine, 'jobs_origin_in_flight')} WHERE origin = ${origin} AND ${sql.raw(inFlight())}`;

/** The cells as the grouped queries' rows: per cell in order, one row per distinct model id. */
export const cellsParam = (cells: CoverageCell[]): CellRow[] =>
  cells.flatMap(({ pin, combination: c }, cell) => [...new Set(c.runModels)].map((model): CellRow =>
    [cell, pin.slug, pin.version, pin.variant, pin.engine, c.harness, model, c.ggConfigRowId, c.ggModels]));

/** A run as a review queue lists it. */
export interface QueuedRun {
  runId: string;
  slug: string;
  version: string;
  variant: string;
  engine: string;
  harness: string;
  model: string;
  finishedAt: string | null;
}

/** Where a stored run sits: the identity a cell matches it on. */
export interface RunCellIdentity {
  slug: string;
  version: string;
  variant: string;
  engine: string;
  harness: string;
  model: string;
  ggConfigRowId: string | null;
  /** Its bound models (its job's, else its record's); null when neither says. */
  ggModels: string | null;
  completed: boolean;
}

/**
 * The review queue as one statement over every cell: it sorts every unreviewed run of every
 * cell to keep the first few (190 ms for 1,000 cells over 100,000 runs). `unreviewedRuns`
 * reads cell by cell instead; the benchmark times it against this.
 */
export const sortedQueueStatement = (engine: Engine, { cells, reviewer }: CellCountArgs, limit: number) =>
  sql<{ id: string }>`SELECT r.id FROM ${cellRows(engine, cells)} CROSS JOIN runs AS r ${indexedBy(engine, 'runs_cell')}
    WHERE ${completedInCellRow} AND ${unreviewed(reviewer)} ORDER BY c.cell, r.finished_at NULLS FIRST, r.id LIMIT ${limit}`;

/** The count queries over `store` (the statistics thread runs them, src/workers/read-stats.ts). */
export function cellCountQueries(store: BackendStore): (args: CellCountArgs) => Promise<CellCountRows> {
  return async (args) => {
    const statements = cellCountStatements(store.engine, args);
    const [runs, jobs] = await Promise.all([statements.runs.execute(store.db), statements.jobs.execute(store.db)]);
    return { runs: runs.rows, jobs: jobs.rows };
  };
}

/** A parameter as text (null for any): PostgreSQL cannot type a bare parameter that is only tested for NULL. */
const textParam = (value: string | null) => sql<string | null>`CAST(${value} AS text)`;

/**
 * Cell counting for plans and ladders. The per-cell counts read every run of every cell (55 ms
 * for a 1,000-cell matrix over 100,000 runs), so `readRows` runs them off the event loop (the
 * app passes the statistics thread's read); the rest are index lookups, run here.
 */
export function cellCounts(store: BackendStore, readRows: (args: CellCountArgs) => Promise<CellCountRows>) {
  const { engine, db } = store;
  // One cell's, oldest first: the index holds a cell's runs in that order, so the read stops at the limit.
  const cellQueue = (fields: Record<CellField, string | null>, models: readonly string[], reviewer: string, limit: number, skipUnloaded: boolean) =>
    sql<QueuedRun>`SELECT r.id AS "runId", r.test_case_slug AS slug, r.test_case_version AS version, r.variant, r.engine, r.harness,
       r.model_id AS model, r.finished_at AS "finishedAt"
     FROM runs AS r ${indexedBy(engine, 'runs_cell')}
     WHERE ${completedInCell((name) => textParam(fields[name]), sql`r.model_id IN (${sql.join(models)})`)} AND ${unreviewed(reviewer)}
       ${skipUnloaded ? sql`AND r.validation_loaded <> 0` : sql``}
     ORDER BY r.finished_at NULLS FIRST, r.id LIMIT ${limit}`;

  return {
    /** Counts per cell, aligned with `cells`; `reviewerId` is the requesting account. */
    async count(cells: CoverageCell[], reviewerId: string): Promise<CellCounts[]> {
      const counts = cells.map(() => ({ completed: 0, inFlight: 0, pending: 0, unreviewed: 0 }));
      if (cells.length === 0) return counts;
      const rows = await readRows({ cells: cellsParam(cells), reviewer: reviewerId });
      for (const row of rows.runs) {
        const cell = counts[row.cell]!;
        cell.completed = row.completed;
        cell.unreviewed = row.unreviewed;
      }
      for (const row of rows.jobs) {
        const cell = counts[row.cell]!;
        cell.inFlight = row.inFlight;
        cell.pending = row.pending;
      }
      return counts;
    },
    /** Every capped harness's load, whatever launched its jobs: the cap is global. One statement. */
    async harnessLoad(): Promise<HarnessLoad> {
      const { rows } = await sql<{ slug: string; cap: number; inFlight: number }>`SELECT h.slug, h.max_parallelism AS cap,
          (SELECT COUNT(*) FROM jobs ${indexedBy(engine, 'jobs_in_flight')} WHERE ${sql.raw(inFlight())} AND jobs.harness_slug = h.slug) AS "inFlight"
        FROM harness_config AS h WHERE h.max_parallelism IS NOT NULL`.execute(db);
      return new Map(rows.map((row) => [row.slug, { cap: row.cap, inFlight: row.inFlight }]));
    },
    /** Non-terminal jobs launched with this origin (`plan:<id>`, `ladder:<id>`). */
    inFlightOfOrigin: async (origin: string): Promise<number> => (await originInFlightStatement(engine, origin).execute(db)).rows[0]?.n ?? 0,
    inFlightIdsOfOrigin: async (origin: string): Promise<string[]> =>
      (await sql<{ id: string }>`SELECT id FROM jobs ${indexedBy(engine, 'jobs_origin_in_flight')} WHERE origin = ${origin} AND ${sql.raw(inFlight())} ORDER BY seq`
        .execute(db)).rows.map((row) => row.id),
    /**
     * Completed runs of the cells the reviewer has not reviewed, cell by cell in the given
     * order (`cell` is the index), oldest first within a cell; one more than `limit` tells the
     * caller it was capped. `skipUnloaded` leaves out runs whose build never loaded.
     *
     * Each cell is one bounded statement, and the read yields to the event loop between
     * cells: on SQLite the statements answer synchronously, so a queue whose first cells are
     * all reviewed would otherwise hold the loop for the whole walk (tens of milliseconds over
     * a thousand cells).
     */
    async unreviewedRuns(cells: CoverageCell[], reviewerId: string, limit: number, skipUnloaded = false): Promise<Array<{ cell: number; run: QueuedRun }>> {
      const rows: Array<{ cell: number; run: QueuedRun }> = [];
      for (const [index, { pin, combination: c }] of cells.entries()) {
        if (rows.length >= limit) break;
        if (index > 0) await yieldToEventLoop();
        const fields = {
          slug: pin.slug, version: pin.version, variant: pin.variant, engine: pin.engine, harness: c.harness,
          gg: c.ggConfigRowId, ggModels: c.ggModels,
        };
        const { rows: runs } = await cellQueue(fields, c.runModels, reviewerId, limit - rows.length, skipUnloaded).execute(db);
        rows.push(...runs.map((run) => ({ cell: index, run })));
      }
      return rows;
    },
    /** Null for an unknown run. */
    async runIdentity(runId: string): Promise<RunCellIdentity | null> {
      const { rows: [row] } = await sql<Omit<RunCellIdentity, 'completed'> & { completed: number }>`
        SELECT r.test_case_slug AS slug, r.test_case_version AS version, r.variant, r.engine, r.harness, r.model_id AS model,
          ${RUN_GG} AS "ggConfigRowId", ${RUN_GG_MODELS} AS "ggModels", ${oneIf(sql`r.state = 'completed' AND r.decode_error IS NULL`)} AS completed
        FROM runs AS r WHERE r.id = ${runId}`.execute(db);
      return row ? { ...row, completed: row.completed === 1 } : null;
    },
  };
}

export type CellCounter = ReturnType<typeof cellCounts>;

/** Whether a run (by its identity) falls in a cell. */
export const runInCell = (run: RunCellIdentity, { pin, combination }: CoverageCell): boolean =>
  run.slug === pin.slug && run.version === pin.version && run.variant === pin.variant && run.engine === pin.engine &&
  run.harness === combination.harness && combination.runModels.includes(run.model) &&
  (combination.ggConfigRowId === null || run.ggConfigRowId === combination.ggConfigRowId) &&
  (combination.ggModels === null || run.ggModels === combination.ggModels);
