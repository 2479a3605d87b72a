import type { Database } from '../db/open-database.js';
import { providerKey } from '../models/quantization.js';

/**
 * The fault rate a gg candidate list orders by, per provider, over stored gg runs of a
 * model: (stalls + unexpected cache misses + turns ended on a failed model call) / calls.
 * Providers are matched by provider key, so `Z.AI` in a record is `z-ai` in a listing.
 */
export function providerFaultRates(db: Database) {
  const perProvider = db.prepare<[string, string], { provider: string; calls: number | null; faults: number }>(
    `SELECT s.provider, SUM(s.calls) AS calls,
            SUM(COALESCE(s.stalls, 0) + COALESCE(s.cache_misses, 0) + COALESCE(s.model_faults, 0)) AS faults
       FROM run_provider_slices s JOIN run_gg_stats g ON g.run_id = s.run_id
      WHERE g.model_id IN (?, ?) AND s.provider IS NOT NULL GROUP BY s.provider`,
  );
  /** `modelIds`: the catalog slug runs name, and the routing id when it differs. */
  return (...modelIds: [string, string?]): ((provider: string) => number | null) => {
    const rates = new Map<string, { calls: number; faults: number }>();
    for (const row of perProvider.all(modelIds[0], modelIds[1] ?? modelIds[0])) {
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
