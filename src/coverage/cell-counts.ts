/**
 * Cell counting (shared by plans and ladders), as a few grouped SQLite queries over a list of
 * cells: `completed` (stored runs in state completed, counted globally), `inFlight` and its
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
import { sqliteStore } from '../db/dialect.js';
import { harnessConfigTable } from '../db/harness-config-table.js';
import { inFlight } from '../db/jobs-table.js';
import type { Database } from '../db/open-database.js';
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
export const AUTO_GRADED = AUTO_GRADED_TEST_TYPES.map((type) => `'${type}'`).join(', ');
/** A run's gg configuration row id: its job's, else the record's (`saved:` stripped). */
export const RUN_GG = `COALESCE((SELECT j.gg_config_id FROM jobs AS j WHERE j.id = r.job_id),
  CASE WHEN r.gg_config_id LIKE 'saved:%' THEN substr(r.gg_config_id, 7) ELSE r.gg_config_id END)`;
/** The bound models of a run `r`: its job's, else its record's (null when neither says). */
const RUN_GG_MODELS = 'COALESCE((SELECT j.gg_models FROM jobs AS j WHERE j.id = r.job_id), r.gg_models)';
/**
 * A cell's fields, in the order `cellsParam` writes them: `model` and `alt` are the two ids its
 * runs may record (the same one twice unless routed), `gg` its gg configuration row id and
 * `ggModels` its bound models, each null for any.
 */
const CELL_FIELDS = ['slug', 'version', 'variant', 'engine', 'harness', 'model', 'gg', 'alt', 'ggModels'] as const;
type CellField = (typeof CELL_FIELDS)[number];
/** A completed run `r` in the cell whose fields `field` gives as SQL expressions. */
export const completedInCell = (field: (name: CellField) => string) =>
  `r.test_case_slug = ${field('slug')} AND r.test_case_version = ${field('version')} AND r.variant = ${field('variant')}
   AND r.engine = ${field('engine')} AND r.harness = ${field('harness')} AND r.model_id IN (${field('model')}, ${field('alt')})
   AND r.state = 'completed' AND r.decode_error IS NULL AND (${field('gg')} IS NULL OR ${RUN_GG} = ${field('gg')})
   AND (${field('ggModels')} IS NULL OR ${RUN_GG_MODELS} = ${field('ggModels')})`;
// CROSS JOIN keeps the cells as the outer loop (SQLite has no statistics for json_each), so
// each cell is one index range, whatever the number of runs and jobs.
/** A field of the `json_each(@cells) AS c` row being joined. */
export const cellsParamField = (name: CellField) => `c.value ->> ${CELL_FIELDS.indexOf(name)}`;
const RUN_MATCH = `FROM json_each(@cells) AS c
  CROSS JOIN runs AS r INDEXED BY runs_cell
  ON ${completedInCell(cellsParamField)}`;
const UNREVIEWED = `COALESCE(r.test_type, '') NOT IN (${AUTO_GRADED})
  AND NOT EXISTS (SELECT 1 FROM run_reviews AS v WHERE v.run_id = r.id AND v.reviewer_id = @reviewer)`;

/** The SQL the counts run, exported so the benchmark can time them raw. */
export const CELL_COUNT_SQL = {
  runs: `SELECT c.key AS cell, COUNT(*) AS completed, SUM(${UNREVIEWED}) AS unreviewed ${RUN_MATCH} GROUP BY c.key`,
  jobs: `SELECT c.key AS cell, COUNT(*) AS inFlight, SUM(j.state = 'pending') AS pending
    FROM json_each(@cells) AS c
    CROSS JOIN jobs AS j INDEXED BY jobs_in_flight_cell
      ON j.test_case_slug = c.value ->> 0 AND j.test_case_version = c.value ->> 1 AND j.variant = c.value ->> 2
     AND j.harness_slug = c.value ->> 4 AND j.model_id IN (c.value ->> 5, c.value ->> 7)
    WHERE ${inFlight('j')} AND COALESCE(j.engine, 'none') = c.value ->> 3
      AND (c.value ->> 6 IS NULL OR j.gg_config_id = c.value ->> 6)
      AND (c.value ->> 8 IS NULL OR j.gg_models = c.value ->> 8)
    GROUP BY c.key`,
  originInFlight: `SELECT COUNT(*) FROM jobs INDEXED BY jobs_origin_in_flight WHERE origin = ? AND ${inFlight()}`,
};

/** The cells as the queries' `@cells` parameter: one array per cell, in order. */
export const cellsParam = (cells: CoverageCell[]): string =>
  JSON.stringify(cells.map(({ pin, combination: c }) =>
    [pin.slug, pin.version, pin.variant, pin.engine, c.harness, c.runModels[0], c.ggConfigRowId, c.runModels[1], c.ggModels]));

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
export const SORTED_QUEUE_SQL = `SELECT r.id ${RUN_MATCH} AND ${UNREVIEWED} ORDER BY c.key, r.finished_at, r.id LIMIT @limit`;

/** The cells as `cellsParam` encodes them, and the requesting account. */
export interface CellCountArgs {
  cells: string;
  reviewer: string;
}

/** What the two count queries answer: a row per cell with any match, by its index. */
export interface CellCountRows {
  runs: Array<{ cell: number; completed: number; unreviewed: number }>;
  jobs: Array<{ cell: number; inFlight: number; pending: number }>;
}

/** The count queries over `db` (the statistics thread runs them, src/workers/read-stats.ts). */
export function cellCountQueries(db: Database): (args: CellCountArgs) => CellCountRows {
  const runs = db.prepare<CellCountArgs, CellCountRows['runs'][number]>(CELL_COUNT_SQL.runs);
  const jobs = db.prepare<{ cells: string }, CellCountRows['jobs'][number]>(CELL_COUNT_SQL.jobs);
  return (args) => ({ runs: runs.all(args), jobs: jobs.all({ cells: args.cells }) });
}

/**
 * Cell counting for plans and ladders. The per-cell counts read every run of every cell (55 ms
 * for a 1,000-cell matrix over 100,000 runs), so `readRows` runs them off the event loop (the
 * app passes the statistics thread's read); the rest are index lookups, run here.
 */
export function cellCounts(db: Database, readRows: (args: CellCountArgs) => Promise<CellCountRows>) {
  const originInFlight = db.prepare<[string], number>(CELL_COUNT_SQL.originInFlight).pluck();
  const originInFlightIds = db.prepare<[string], string>(`SELECT id FROM jobs INDEXED BY jobs_origin_in_flight WHERE origin = ? AND ${inFlight()} ORDER BY seq`).pluck();
  // One cell's, oldest first: the index holds a cell's runs in that order, so the read stops at the limit.
  const cellQueue = db.prepare<Record<CellField | 'reviewer', string | null> & { limit: number; skipUnloaded: 0 | 1 }, QueuedRun>(
    `SELECT r.id AS runId, r.test_case_slug AS slug, r.test_case_version AS version, r.variant, r.engine, r.harness, r.model_id AS model,
       r.finished_at AS finishedAt
     FROM runs AS r INDEXED BY runs_cell
     WHERE ${completedInCell((name) => `@${name}`)} AND ${UNREVIEWED} AND NOT (@skipUnloaded = 1 AND r.validation_loaded = 0)
     ORDER BY r.finished_at, r.id LIMIT @limit`,
  );
  const identity = db.prepare<[string], Omit<RunCellIdentity, 'completed'> & { completed: number }>(
    `SELECT r.test_case_slug AS slug, r.test_case_version AS version, r.variant, r.engine, r.harness, r.model_id AS model,
       ${RUN_GG} AS ggConfigRowId, ${RUN_GG_MODELS} AS ggModels, r.state = 'completed' AND r.decode_error IS NULL AS completed
     FROM runs AS r WHERE r.id = ?`,
  );

  const harnessCaps = harnessConfigTable(sqliteStore(db));
  const harnessInFlight = db.prepare<[string], number>(`SELECT COUNT(*) FROM jobs INDEXED BY jobs_in_flight WHERE ${inFlight()} AND harness_slug = ?`).pluck();

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
    /** Every capped harness's load, whatever launched its jobs: the cap is global. */
    async harnessLoad(): Promise<HarnessLoad> {
      return new Map([...(await harnessCaps.caps())].map(([slug, cap]) => [slug, { cap, inFlight: harnessInFlight.get(slug) ?? 0 }]));
    },
    /** Non-terminal jobs launched with this origin (`plan:<id>`, `ladder:<id>`). */
    inFlightOfOrigin: (origin: string): number => originInFlight.get(origin) ?? 0,
    inFlightIdsOfOrigin: (origin: string): string[] => originInFlightIds.all(origin),
    /**
     * Completed runs of the cells the reviewer has not reviewed, cell by cell in the given
     * order (`cell` is the index), oldest first within a cell; one more than `limit` tells the
     * caller it was capped. `skipUnloaded` leaves out runs whose build never loaded.
     */
    unreviewedRuns(cells: CoverageCell[], reviewerId: string, limit: number, skipUnloaded = false): Array<{ cell: number; run: QueuedRun }> {
      const rows: Array<{ cell: number; run: QueuedRun }> = [];
      for (const [index, { pin, combination: c }] of cells.entries()) {
        if (rows.length >= limit) break;
        rows.push(...cellQueue.all({
          slug: pin.slug, version: pin.version, variant: pin.variant, engine: pin.engine, harness: c.harness,
          model: c.runModels[0], alt: c.runModels[1], gg: c.ggConfigRowId, ggModels: c.ggModels,
          reviewer: reviewerId, limit: limit - rows.length, skipUnloaded: skipUnloaded ? 1 : 0,
        }).map((run) => ({ cell: index, run })));
      }
      return rows;
    },
    /** Null for an unknown run. */
    runIdentity(runId: string): RunCellIdentity | null {
      const row = identity.get(runId);
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
