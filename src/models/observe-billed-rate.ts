import type { RouterClient } from './router-client.js';
import type { ModelCatalogStore } from './model-catalog-store.js';
import { routingIdOf, type Rates } from './model-entry.js';

export type ObservationSource = 'run-completion' | 'refresh' | 'enqueue' | 'save';

/**
 * Reads the rate the deployment is billed for a model (its pinned provider's endpoint when
 * the entry pins one, else the official endpoint) and appends it to the price history when
 * it differs from the latest observation. Never touches the list price.
 */
export async function observeBilledRate(
  store: ModelCatalogStore,
  client: Pick<RouterClient, 'lookupListing' | 'getEndpoints'>,
  slug: string,
  source: ObservationSource,
): Promise<boolean> {
  const entry = store.get(slug);
  const pin = entry?.providerPinSetByHand ? entry.providerPin : null;
  const routingId = entry ? routingIdOf(entry) : slug;
  let rates: Rates | null;
  if (pin) {
    rates = await pinnedRates(client, routingId, pin);
  } else {
    const listing = await client.lookupListing(routingId);
    if (entry?.curated) store.observeOfficialProvider(slug, listing.officialProvider);
    rates = listing;
  }
  if (!rates || (rates.inputPerMtok === null && rates.outputPerMtok === null)) return false;
  return store.observeBilledRate(slug, { inputPerMtok: rates.inputPerMtok, cachedInputPerMtok: rates.cachedInputPerMtok, outputPerMtok: rates.outputPerMtok }, source);
}

async function pinnedRates(client: Pick<RouterClient, 'getEndpoints'>, slug: string, pin: string): Promise<Rates | null> {
  const model = await client.getEndpoints(slug);
  const endpoint = model?.endpoints.find((candidate) => candidate.providerName.toLowerCase() === pin.toLowerCase());
  return endpoint ? endpoint.rates : null;
}

/** The missing-only observation made at enqueue and on save: best effort, never blocks the caller's success. */
export async function observeIfMissing(
  store: ModelCatalogStore,
  client: Pick<RouterClient, 'lookupListing' | 'getEndpoints'>,
  slug: string,
  source: 'enqueue' | 'save',
  onError: (error: unknown) => void,
): Promise<void> {
  if (store.hasBilledRate(slug)) return;
  try {
    await observeBilledRate(store, client, slug, source);
  } catch (error) {
    onError(error);
  }
}

/** The 24-hour refresh: every curated model, one failure not stopping the others. */
export async function refreshBilledRates(
  store: ModelCatalogStore,
  client: Pick<RouterClient, 'lookupListing' | 'getEndpoints'>,
  onError: (slug: string, error: unknown) => void,
): Promise<{ observed: number; changed: number; failed: number }> {
  let observed = 0;
  let changed = 0;
  let failed = 0;
  for (const slug of store.curatedSlugs()) {
    try {
      if (await observeBilledRate(store, client, slug, 'refresh')) changed++;
      observed++;
    } catch (error) {
      failed++;
      onError(slug, error);
    }
  }
  return { observed, changed, failed };
}
