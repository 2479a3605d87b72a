import { sql } from 'kysely';
import { weekStart, type BackendStore } from '../db/dialect.js';
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
export function cabinetStats(store: BackendStore) {
  const { db, engine } = store;
  const unreported = (column: 'tokens_total' | 'cost') => sql<number | null>`SUM(CASE WHEN ${sql.ref(column)} IS NULL THEN 1 ELSE 0 END)`;
  const distinctNonEmpty = (column: 'test_case_slug' | 'model_id') => sql<number>`COUNT(DISTINCT NULLIF(${sql.ref(column)}, ''))`;

  return async (now = Date.now()) => {
    const row = await db
      .selectFrom('runs')
      .select((eb) => [
        eb.fn.countAll<number>().as('runs'),
        eb.fn.sum<number | null>('tokens_total').as('tokens'),
        unreported('tokens_total').as('tokensUnreported'),
        eb.fn.sum<number | null>('cost').as('cost'),
        unreported('cost').as('costUnreported'),
        distinctNonEmpty('test_case_slug').as('testCases'),
        distinctNonEmpty('model_id').as('models'),
      ])
      .executeTakeFirstOrThrow();
    const thisWeek = Date.parse(`${weekStartOf(now)}T00:00:00Z`);
    const weeks = Array.from({ length: STATS_WEEKS }, (_, i) => new Date(thisWeek - (STATS_WEEKS - 1 - i) * 7 * DAY).toISOString().slice(0, 10));
    // Each run counts in the week of its finish (or store) time.
    const weekly = await db
      .selectFrom('runs')
      .select((eb) => {
        const week = weekStart(engine, eb.fn.coalesce('finished_at', 'created_at'));
        return [week.as('week'), eb.fn.countAll<number>().as('runs')];
      })
      .where((eb) => eb(eb.fn.coalesce('finished_at', 'created_at'), '>=', `${weeks[0]}T00:00:00`))
      .groupBy((eb) => weekStart(engine, eb.fn.coalesce('finished_at', 'created_at')))
      .execute();
    const counts = new Map(weekly.map((entry) => [entry.week, entry.runs]));
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
