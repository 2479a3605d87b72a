import { bufferTargetColumns } from '../coverage/buffer-target.js';
import { coverageSettingsTable } from '../db/coverage-settings-table.js';
import type { BackendStore } from '../db/dialect.js';
import type { SourceShape } from './detect-generation.js';
import type { TableLedger } from './ledger.js';
import { bufferOf } from './map-coverage.js';
import { text } from './source-values.js';
import type { SourceDb } from './source-db.js';

const SETTINGS_DIGEST = ['account_id', 'buffer_kind', 'buffer_runs'] as const;

/**
 * `coverage_settings` → `coverage_settings` (§2.2.12) through `setBufferTarget`: negative is
 * unbounded, n bounded (above 500 → 500, noted), and from #55 the in-flight limit is copied
 * (our buffer also counts unreviewed runs: noted). A NULL leaves no row, so our default
 * applies, which is the original's. An account holding another setting here is a conflict.
 */
export async function importCoverageSettings(deps: { source: SourceDb; shape: SourceShape; store: BackendStore; dryRun: boolean; batchRows: number; ledger: TableLedger }): Promise<void> {
  const { store, ledger } = deps;
  ledger.digests(SETTINGS_DIGEST);
  const settings = coverageSettingsTable(store);
  const column = deps.shape.has('coverage_settings', 'in_flight_limit') ? 'in_flight_limit' : 'buffer_target';
  const read = (id: string) => store.db.selectFrom('coverage_settings').select(SETTINGS_DIGEST).where('account_id', '=', id).executeTakeFirst();
  for await (const page of deps.source.pages('coverage_settings', ['user_id'], deps.batchRows)) {
    for (const row of page) {
      ledger.read += 1;
      const accountId = text(row.user_id)!;
      const target = bufferOf(row[column], `coverage_settings ${accountId}`, ledger.notes);
      if (target === null) {
        ledger.skip('no setting (NULL): our default applies, which is the original\'s', accountId);
        continue;
      }
      if (column === 'in_flight_limit') ledger.notes.push(`coverage_settings ${accountId}: the in-flight limit is copied as our buffer target, which counts unreviewed runs too`);
      const { bufferKind, bufferRuns } = bufferTargetColumns(target);
      const mapped = [accountId, bufferKind, bufferRuns];
      const held = await read(accountId);
      if (held && (held.buffer_kind !== bufferKind || (held.buffer_runs ?? null) !== bufferRuns)) {
        ledger.refuse('conflict: the account already holds another buffer setting here (never overwritten)', accountId);
        continue;
      }
      if (!held && !deps.dryRun) {
        await settings.setBufferTarget(accountId, target);
        ledger.written += 1;
      }
      ledger.imported += 1;
      ledger.mapped!.source.add(mapped);
      if (deps.dryRun) continue;
      const after = await read(accountId);
      if (after) ledger.mapped!.target.add(SETTINGS_DIGEST.map((c) => after[c]));
    }
  }
}
