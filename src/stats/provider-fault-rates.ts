import { sql } from 'kysely';
import type { BackendStore } from '../db/dialect.js';
import { providerKey } from '../models/quantization.js';

/**
 * The fault rate a gg candidate list orders by, per provider, over the stored gg slices of a
 * model: (stalls + unexpected cache misses + turns ended on a failed model call) / calls. As
 * the original counts it (its `provider_fault_rates`), a slice counts when its own model —
 * the run's sole model for a slice that names none, resolved at store time — is one of the
 * ids the model is recorded under, whatever model the run was launched on. Providers are
 * matched by provider key, so `Z.AI` in a record is `z-ai` in a listing.
 */
export function providerFaultRates({ db }: BackendStore) {
  /** `modelIds`: the routing id, the catalog slug and its aliases. */
  return async (modelIds: readonly string[]): Promise<(provider: string) => number | null> => {
    const ids = [...new Set(modelIds)];
    const rows = ids.length === 0 ? [] : await db.selectFrom('run_provider_slices as s')
      .where('s.model_id', 'in', ids).where('s.provider', 'is not', null)
      .groupBy('s.provider')
      .select((eb) => [
        sql.ref<string>('s.provider').as('provider'), eb.fn.sum<number | null>('s.calls').as('calls'),
        sql<number>`SUM(COALESCE(s.stalls, 0) + COALESCE(s.cache_misses, 0) + COALESCE(s.model_faults, 0))`.as('faults'),
      ])
      .execute();
    const rates = new Map<string, { calls: number; faults: number }>();
    for (const row of rows) {
      const k = providerKey(row.provider);
      const held = rates.get(k) ?? { calls: 0, faults: 0 };
      rates.set(k, { calls: held.calls + (row.calls ?? 0), faults: held.faults + row.faults });
    }
    return (provider) => {
      const rate = rates.get(providerKey(provider));
      return rate && rate.calls > 0 ? rate.faults / rate.calls : null;
    };
  };
}
