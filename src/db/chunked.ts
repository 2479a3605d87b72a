/** Bound parameters one statement may carry on both engines (PostgreSQL allows 65,535, SQLite 32,766). */
export const MAX_BOUND_PARAMETERS = 30_000;

/**
 * Rows for a multi-row insert, cut so each statement stays under `MAX_BOUND_PARAMETERS`:
 * one chunk per statement, none for no rows (an insert of no rows is not valid SQL).
 */
export function* chunked<Row extends object>(rows: readonly Row[], maxParameters = MAX_BOUND_PARAMETERS): Generator<Row[]> {
  if (rows.length === 0) return;
  const perRow = Math.max(1, Object.keys(rows[0]!).length);
  const size = Math.max(1, Math.floor(maxParameters / perRow));
  for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
}
