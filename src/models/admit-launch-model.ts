import type { RouterClient } from './router-client.js';
import { fillMissingListPrice, refuseUncatalogued } from './list-price-from-router.js';
import type { ModelCatalogStore } from './model-catalog-store.js';
import { enqueueRateObserver } from './observe-billed-rate.js';

export type Admission = { ok: true } | { ok: false; reason: string };

/**
 * The enqueue-time model rule: a launch needs a curated catalog entry with a list price.
 * A curated entry missing one gets its official endpoint's rates from the routing provider
 * (stamped `router`); a model the catalog lacks, or the provider lists no rate for, is refused.
 */
export function launchModelAdmission(
  store: ModelCatalogStore,
  client: Pick<RouterClient, 'lookupListing' | 'getEndpoints'>,
  onObservationError: (error: unknown) => void,
) {
  const observeRate = enqueueRateObserver(store, client, onObservationError);
  return {
    async admit(modelId: string): Promise<Admission> {
      const entry = await store.get(modelId);
      if (!entry?.curated) return { ok: false, reason: refuseUncatalogued(modelId).reason };
      const fill = await fillMissingListPrice(entry, client, new Date());
      if (fill.refused) return { ok: false, reason: fill.reason };
      if (fill.filled) {
        const rates = fill.entry.listPrice!;
        // A provider that offers no prompt caching bills cached input tokens as input tokens.
        await store.setRouterListPrice(modelId, {
          inputPerMtok: rates.inputPerMtok!,
          cachedInputPerMtok: rates.cachedInputPerMtok ?? rates.inputPerMtok!,
          outputPerMtok: rates.outputPerMtok!,
        }, fill.entry.listPriceAsOf!);
      }
      // The billed rate, when none is on record yet, is observed behind the launch's answer.
      observeRate(modelId);
      return { ok: true };
    },
  };
}
