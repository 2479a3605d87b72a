import type { Database } from '../db/open-database.js';
import { DAY } from '../time.js';

export const STATS_WEEKS = 52;

/** Monday (UTC) of the week holding `time`, as YYYY-MM-DD. */
export function weekStartOf(time: number): string {
  const day = new Date(time);
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()) - sinceMonday * DAY).toISOString().slice(0, 10);
}

/**
 * `GET /stats/cabinet`, folded from lifted columns over every stored run whatever its state,
 * so unreadable runs count. A run with no reported tokens or unknown cost adds nothing to
 * that total and is counted as unreported instead.
 */
export function cabinetStats(db: Database) {
  const totals = db.prepare<[], { runs: number; tokens: number | null; tokensUnreported: number; cost: number | null; costUnreported: number; testCases: number; models: number }>(
    `SELECT COUNT(*) AS runs,
            SUM(tokens_total) AS tokens, SUM(tokens_total IS NULL) AS tokensUnreported,
            SUM(cost) AS cost, SUM(cost IS NULL) AS costUnreported,
            COUNT(DISTINCT NULLIF(test_case_slug, '')) AS testCases, COUNT(DISTINCT NULLIF(model_id, '')) AS models
       FROM runs`,
  );
  // Monday on or before the finish (or store) time: step back six days, then forward to Monday.
  const weekly = db.prepare<[string], { week: string; runs: number }>(
    `SELECT date(COALESCE(finished_at, created_at), '-6 days', 'weekday 1') AS week, COUNT(*) AS runs
       FROM runs WHERE COALESCE(finished_at, created_at) >= ? GROUP BY week`,
  );

  return (now = Date.now()) => {
    const row = totals.get()!;
    const thisWeek = Date.parse(`${weekStartOf(now)}T00:00:00Z`);
    const weeks = Array.from({ length: STATS_WEEKS }, (_, i) => new Date(thisWeek - (STATS_WEEKS - 1 - i) * 7 * DAY).toISOString().slice(0, 10));
    const counts = new Map(weekly.all(`${weeks[0]}T00:00:00`).map((entry) => [entry.week, entry.runs]));
    return {
      runs: row.runs,
      tokens: { total: row.tokens ?? 0, unreportedRuns: row.tokensUnreported ?? 0 },
      cost: { total: Math.round((row.cost ?? 0) * 1e6) / 1e6, unreportedRuns: row.costUnreported ?? 0 },
      testCases: row.testCases,
      models: row.models,
      weekly: weeks.map((weekStart) => ({ weekStart, runs: counts.get(weekStart) ?? 0 })),
    };
  };
}
