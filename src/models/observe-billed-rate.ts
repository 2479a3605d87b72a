import { MINUTE } from '../time.js';
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
  const entry = await store.get(slug);
  const pin = entry?.providerPinSetByHand ? entry.providerPin : null;
  const routingId = entry ? routingIdOf(entry) : slug;
  let rates: Rates | null;
  if (pin) {
    rates = await pinnedRates(client, routingId, pin);
  } else {
    const listing = await client.lookupListing(routingId);
    if (entry?.curated) await store.observeOfficialProvider(slug, listing.officialProvider);
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

/** The missing-only observation made on save: best effort, never blocks the caller's success. */
export async function observeIfMissing(
  store: ModelCatalogStore,
  client: Pick<RouterClient, 'lookupListing' | 'getEndpoints'>,
  slug: string,
  onError: (error: unknown) => void,
): Promise<void> {
  try {
    if (await store.hasBilledRate(slug)) return;
    await observeBilledRate(store, client, slug, 'save');
  } catch (error) {
    onError(error);
  }
}

/** After an enqueue-time observation failed, or found no rate, the model is not asked about again for this long (ms). */
const ENQUEUE_RETRY_MS = MINUTE;

/**
 * The missing-only observation made at enqueue, in the background: a launch never waits on
 * the routing provider for it (whose calls time out after 10 s), one observation per model
 * runs at a time, and a model whose observation failed or found no rate waits a minute
 * before the next launch asks again, so an outage of the provider costs one call and one
 * logged failure per model a minute, not one per launch. The 24-hour refresh and the
 * observation at run completion fill what this misses.
 */
export function enqueueRateObserver(
  store: ModelCatalogStore,
  client: Pick<RouterClient, 'lookupListing' | 'getEndpoints'>,
  onError: (error: unknown) => void,
): (slug: string) => void {
  const running = new Set<string>();
  const missedAt = new Map<string, number>();
  return (slug) => {
    if (running.has(slug) || Date.now() - (missedAt.get(slug) ?? -Infinity) < ENQUEUE_RETRY_MS) return;
    running.add(slug);
    const observe = async () => {
      if (await store.hasBilledRate(slug)) return;
      await observeBilledRate(store, client, slug, 'enqueue');
      if (await store.hasBilledRate(slug)) missedAt.delete(slug);
      else missedAt.set(slug, Date.now());
    };
    observe()
      .catch((error: unknown) => {
        missedAt.set(slug, Date.now());
        onError(error);
      })
      .finally(() => running.delete(slug));
  };
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
  for (const slug of await store.curatedSlugs()) {
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
