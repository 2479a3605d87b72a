import { bufferTargetColumns, bufferTargetFromColumns, type BufferTarget } from '../coverage/buffer-target.js';
import type { BackendStore } from './dialect.js';

/** The account-wide coverage setting; an account that never chose one has no row. */
export function coverageSettingsTable(store: BackendStore) {
  return {
    /** Null when the account never chose a target. */
    async bufferTarget(accountId: string): Promise<BufferTarget | null> {
      const row = await store.db.selectFrom('coverage_settings').select(['buffer_kind', 'buffer_runs']).where('account_id', '=', accountId).executeTakeFirst();
      return row ? bufferTargetFromColumns(row.buffer_kind, row.buffer_runs) : null;
    },
    async setBufferTarget(accountId: string, target: BufferTarget): Promise<void> {
      const { bufferKind, bufferRuns } = bufferTargetColumns(target);
      await store.db.insertInto('coverage_settings')
        .values({ account_id: accountId, buffer_kind: bufferKind!, buffer_runs: bufferRuns, updated_at: new Date().toISOString() })
        .onConflict((conflict) => conflict.column('account_id').doUpdateSet((eb) => ({
          buffer_kind: eb.ref('excluded.buffer_kind'), buffer_runs: eb.ref('excluded.buffer_runs'), updated_at: eb.ref('excluded.updated_at'),
        })))
        .execute();
    },
  };
}

export type CoverageSettingsTable = ReturnType<typeof coverageSettingsTable>;
