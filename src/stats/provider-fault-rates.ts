import type { Database } from '../db/open-database.js';
import { providerKey } from '../models/quantization.js';

/**
 * The fault rate a gg candidate list orders by, per provider, over the stored gg slices of a
 * model: (stalls + unexpected cache misses + turns ended on a failed model call) / calls. As
 * the original counts it (its `provider_fault_rates`), a slice counts when its own model —
 * the run's sole model for a slice that names none, resolved at store time — is one of the
 * ids the model is recorded under, whatever model the run was launched on. Providers are
 * matched by provider key, so `Z.AI` in a record is `z-ai` in a listing.
 */
export function providerFaultRates(db: Database) {
  const perProvider = db.prepare<[string], { provider: string; calls: number | null; faults: number }>(
    `SELECT s.provider, SUM(s.calls) AS calls,
            SUM(COALESCE(s.stalls, 0) + COALESCE(s.cache_misses, 0) + COALESCE(s.model_faults, 0)) AS faults
       FROM run_provider_slices s
      WHERE s.model_id IN (SELECT value FROM json_each(?)) AND s.provider IS NOT NULL GROUP BY s.provider`,
  );
  /** `modelIds`: the routing id, the catalog slug and its aliases. */
  return (modelIds: readonly string[]): ((provider: string) => number | null) => {
    const rates = new Map<string, { calls: number; faults: number }>();
    for (const row of perProvider.all(JSON.stringify([...new Set(modelIds)]))) {
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
