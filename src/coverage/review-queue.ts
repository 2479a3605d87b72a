/**
 * The review queue (shared by plans and ladders): the completed runs of an owner's cells that
 * the requester has not reviewed, cell by cell in emission order, oldest first within a cell,
 * as summary cards (JSON text, never re-parsed), capped with `truncated`.
 */
import type { RunGrades } from '../runs/run-grades.js';
import { summaryCardJson } from '../runs/run-views.js';
import type { CellCounter } from './cell-counts.js';
import type { CoverageCell } from './coverage-cells.js';

export const DEFAULT_QUEUE_LIMIT = 50;

export async function reviewQueueJson(
  grades: RunGrades, counter: CellCounter, cells: CoverageCell[], reviewerId: string, limit = DEFAULT_QUEUE_LIMIT,
): Promise<string> {
  const rows = counter.unreviewedRuns(cells, reviewerId, limit + 1);
  const fresh = await grades.freshen(rows.slice(0, limit));
  return `{"runs":[${fresh.map(summaryCardJson).join(',')}],"truncated":${rows.length > limit}}`;
}
