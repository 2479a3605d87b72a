import { LAUNCHABLE_HARNESSES } from '../contract/jobs.js';
import type { BackendStore } from '../db/dialect.js';
import { harnessConfigTable } from '../db/harness-config-table.js';
import type { TableLedger } from './ledger.js';
import { text } from './source-values.js';
import type { SourceDb } from './source-db.js';

/** The `harness_config` columns both digests cover: what the mapping decides, not the revision our store mints. */
export const CAP_DIGEST_COLUMNS = ['slug', 'max_parallelism'] as const;

/**
 * `harness_config` → `harness_config` (§2.2.7) through `harnessConfigTable.set`, which mints
 * the next revision, in the original's `updated_at` order. A cap of 0 or below is refused
 * (D7: our store's CHECK takes 1 and up; the harness stays uncapped); a slug that is no
 * harness here is skipped; a cap we hold already equal is left alone (no new revision), and
 * a different one is a conflict, never overwritten. Boot copies the caps into Redis.
 */
export async function importHarnessCaps(deps: { source: SourceDb; store: BackendStore; dryRun: boolean; batchRows: number; ledger: TableLedger }): Promise<void> {
  const { store, ledger } = deps;
  ledger.digests(CAP_DIGEST_COLUMNS);
  const caps = harnessConfigTable(store);
  const harnesses = new Set<string>(LAUNCHABLE_HARNESSES);
  for await (const page of deps.source.pages('harness_config', ['updated_at', 'harness_slug'], deps.batchRows)) {
    const held = new Map((await caps.rows()).map((row) => [row.slug, row.maxParallelism]));
    for (const row of page) {
      ledger.read += 1;
      const slug = text(row.harness_slug)!;
      const raw = row.max_parallelism;
      const cap = raw === null || raw === undefined ? null : Number(raw);
      if (!harnesses.has(slug)) {
        ledger.skip('no such harness here (not one of LAUNCHABLE_HARNESSES)', slug);
        continue;
      }
      if (cap !== null && !(Number.isInteger(cap) && cap >= 1)) {
        ledger.refuse(`D7: max_parallelism ${String(raw)} is not a cap here (1 or more, or none); the harness stays uncapped`, slug);
        continue;
      }
      if (held.has(slug) && held.get(slug) !== cap) {
        ledger.refuse(`conflict: the store already holds cap ${String(held.get(slug))} for this harness (never overwritten)`, slug);
        continue;
      }
      if (!held.has(slug) && !deps.dryRun) {
        await caps.set(slug, cap);
        ledger.written += 1;
      }
      ledger.imported += 1;
      ledger.mapped!.source.add([slug, cap]);
      if (deps.dryRun) continue;
      const after = (await caps.rows()).find((r) => r.slug === slug);
      if (after) ledger.mapped!.target.add([after.slug, after.maxParallelism]);
    }
  }
}
