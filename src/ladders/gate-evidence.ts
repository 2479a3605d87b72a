/**
 * The gate's evidence per ladder cell, for the requesting account, as one grouped query over
 * the cells (the same cells parameter and cell matching as coverage's counts):
 * completed runs, how many the gate has a rating for, and how many clear the floor. A run's
 * rating is the requester's own review's, else the validators' (validator-rated runs), and an
 * unloaded build is broken when the gate says so. Other accounts' reviews never count.
 */
import { sql } from 'kysely';
import { AUTO_GRADED, cellRows, completedInCellRow, oneIf, type CellRow } from '../coverage/cell-counts.js';
import { indexedBy, type BackendStore, type Engine } from '../db/dialect.js';
import { ratingRank } from '../runs/run-states.js';
import type { Gate } from './gate.js';

export interface CellEvidence {
  completed: number;
  judged: number;
  passing: number;
  /**
   * Unloaded builds the requester has not reviewed, counted only when the gate rates them
   * broken: they wait on nobody, so they leave the review buffer and the queue.
   */
  unloadedUnreviewed: number;
}


/** The query's parameters: the cells as `cellsParam` encodes them, the requester, and the gate's floor and unloaded rule. */
export interface GateEvidenceArgs {
  cells: CellRow[];
  reviewer: string;
  floor: number;
  unloadedBroken: 0 | 1;
}

export type GateEvidenceRow = CellEvidence & { cell: number };

/** The query, exported so the benchmark can time it raw. Grouped on the outer loop, so no sort. */
export function gateEvidenceStatement(engine: Engine, { cells, reviewer, floor, unloadedBroken }: GateEvidenceArgs) {
  const broken = sql<boolean>`r.validation_loaded = 0 AND ${unloadedBroken} = 1`;
  // The rating the gate reads for a run: broken for an unloaded build (when the gate says so), else the requester's review's, else the validators'.
  const rating = sql<number | null>`CASE WHEN ${broken} THEN 0 ELSE COALESCE(own.rating_rank, r.validator_rating_rank) END`;
  return sql<GateEvidenceRow>`SELECT c.cell, COUNT(*) AS completed, COUNT(${rating}) AS judged,
      SUM(${oneIf(sql`${rating} >= ${floor}`)}) AS passing,
      SUM(${oneIf(sql`${broken} AND own.run_id IS NULL AND COALESCE(r.test_type, '') NOT IN (${AUTO_GRADED})`)}) AS "unloadedUnreviewed"
    FROM ${cellRows(engine, cells)}
    -- CROSS JOIN keeps the cells as the outer loop, as coverage's counts do: one index range per cell.
    CROSS JOIN runs AS r ${indexedBy(engine, 'runs_gate_cell')}
    LEFT JOIN run_reviews AS own ${indexedBy(engine, 'run_reviews_gate')} ON own.run_id = r.id AND own.reviewer_id = ${reviewer}
    WHERE ${completedInCellRow}
    GROUP BY c.cell`;
}

/** The query over `store` (the statistics thread runs it, src/workers/read-stats.ts). */
export function gateEvidenceQuery(store: BackendStore): (args: GateEvidenceArgs) => Promise<GateEvidenceRow[]> {
  return async (args) => (await gateEvidenceStatement(store.engine, args).execute(store.db)).rows;
}

/**
 * The gate's evidence for a ladder's cells. The query reads every run of every cell (63 ms
 * for 1,000 cells over 100,000 runs), so `readRows` runs it off the event loop (the app
 * passes the statistics thread's read).
 */
export function gateEvidence(readRows: (args: GateEvidenceArgs) => Promise<GateEvidenceRow[]>) {
  return {
    /** Evidence per cell, aligned with the cells `cells` holds (coverage's `cellsParam`). */
    async of(cells: CellRow[], cellCount: number, gate: Gate, reviewerId: string): Promise<CellEvidence[]> {
      const out = Array.from({ length: cellCount }, () => ({ completed: 0, judged: 0, passing: 0, unloadedUnreviewed: 0 }));
      if (cellCount === 0) return out;
      const rows = await readRows({ cells, reviewer: reviewerId, floor: ratingRank(gate.floor), unloadedBroken: gate.unloadedCountsAsBroken ? 1 : 0 });
      for (const { cell, ...evidence } of rows) out[cell] = evidence;
      return out;
    },
  };
}

export type GateEvidence = ReturnType<typeof gateEvidence>;
