import type { ModelEntry, Rates } from './model-entry.js';
import { parseModelSlug } from './model-slug.js';

/** USD per token, as entries show list and billed prices. */
export interface PerTokenRates {
  uncachedInput: number | null;
  cachedInput: number | null;
  output: number | null;
}

/** A per-Mtok figure per token, rounded to 15 significant digits so 0.95 reads 9.5e-7, not 9.499999999999999e-7. */
export function perToken(perMtok: number | null): number | null {
  return perMtok === null ? null : Number((perMtok / 1_000_000).toPrecision(15));
}

function perTokenRates(rates: Rates): PerTokenRates {
  return { uncachedInput: perToken(rates.inputPerMtok), cachedInput: perToken(rates.cachedInputPerMtok), output: perToken(rates.outputPerMtok) };
}

/**
 * The model's page at the routing provider, or null when the entry sets no `openrouterSlug`
 * (as the original links it: an `author/name` slug alone is not taken for a routing id here).
 */
export function openrouterUrlOf(entry: Pick<ModelEntry, 'openrouterSlug'>, routerBaseUrl: string): string | null {
  const id = entry.openrouterSlug;
  if (!id) return null;
  try {
    parseModelSlug(id);
  } catch {
    return null;
  }
  return `${routerBaseUrl.replace(/\/+$/, '')}/${id}`;
}

/** An entry as `GET /models` and the writes answer it: prices per token, the routing page resolved. */
export function modelEntryWire(entry: ModelEntry, routerBaseUrl: string) {
  return {
    ...entry,
    openrouterUrl: openrouterUrlOf(entry, routerBaseUrl),
    listPrice: entry.listPrice && perTokenRates(entry.listPrice),
    price: entry.price && perTokenRates(entry.price),
  };
}
