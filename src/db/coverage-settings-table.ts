import { bufferTargetColumns, bufferTargetFromColumns, type BufferTarget } from '../coverage/buffer-target.js';
import type { Database } from './open-database.js';

/** The account-wide coverage setting; an account that never chose one has no row. */
export function coverageSettingsTable(db: Database) {
  const one = db.prepare<[string], { kind: string; runs: number | null }>(
    'SELECT buffer_kind AS kind, buffer_runs AS runs FROM coverage_settings WHERE account_id = ?',
  );
  const upsert = db.prepare(
    `INSERT INTO coverage_settings (account_id, buffer_kind, buffer_runs, updated_at) VALUES (@accountId, @bufferKind, @bufferRuns, @now)
     ON CONFLICT (account_id) DO UPDATE SET buffer_kind = excluded.buffer_kind, buffer_runs = excluded.buffer_runs, updated_at = excluded.updated_at`,
  );
  return {
    /** Null when the account never chose a target. */
    bufferTarget(accountId: string): BufferTarget | null {
      const row = one.get(accountId);
      return row ? bufferTargetFromColumns(row.kind, row.runs) : null;
    },
    setBufferTarget: (accountId: string, target: BufferTarget) =>
      void upsert.run({ accountId, ...bufferTargetColumns(target), now: new Date().toISOString() }),
  };
}

export type CoverageSettingsTable = ReturnType<typeof coverageSettingsTable>;
