import { HttpError } from '../errors.js';
import type { RouterClient } from './router-client.js';
import type { RouterListing } from './router-listing.js';
import type { PerMtokRates } from './router-responses.js';

/** The list-price fields of a curated catalog entry, as the catalog store holds them. */
export interface ListPriceFields {
  slug: string;
  /** The model's id at the routing provider when it differs from `slug`. */
  openrouterSlug?: string | null;
  listPrice: PerMtokRates | null;
  /** YYYY-MM-DD. */
  listPriceAsOf: string | null;
  listPriceSource: 'hand' | 'router' | null;
}

export type ListPriceFill<T extends ListPriceFields> =
  /** The entry already had a list price: nothing to write. */
  | { refused: false; filled: false; entry: T }
  /** The entry with the router's rates filled in; the caller persists it. */
  | { refused: false; filled: true; entry: T }
  /** The launch must not go ahead; `reason` is one sentence naming the model and why. */
  | { refused: true; reason: string };

/**
 * The enqueue-time list-price rule: a curated model without a list price gets the rates of
 * its official endpoint on the routing provider, stamped `router` and dated today (UTC).
 * When the provider has no rate for it the launch is refused, since its runs could not be
 * priced comparably.
 *
 * A rate counts as listed when the input and the output rates are; the cached-input rate
 * may be null, as for models whose provider offers no prompt caching, and is then kept null
 * rather than guessed.
 *
 * Storage is the caller's: pass the curated entry (a run-derived one is no catalog entry:
 * use refuseUncatalogued) and save `entry` when `filled`. A provider that cannot be reached
 * is not a refusal: its 502 (or 503 `router_key_missing`) propagates.
 */
export async function fillMissingListPrice<T extends ListPriceFields>(
  entry: T,
  client: Pick<RouterClient, 'lookupListing'>,
  now: Date,
): Promise<ListPriceFill<T>> {
  if (hasListPrice(entry.listPrice)) return { refused: false, filled: false, entry };

  let listing: RouterListing;
  try {
    listing = await client.lookupListing(entry.openrouterSlug ?? entry.slug);
  } catch (error) {
    if (error instanceof HttpError && error.code === 'not_found') {
      return refusal(`The routing provider lists no rate for ${entry.slug}: it does not list the model.`);
    }
    throw error;
  }

  const { inputPerMtok, cachedInputPerMtok, outputPerMtok } = listing;
  if (inputPerMtok === null || outputPerMtok === null) {
    const author = entry.slug.split('/')[0];
    if (listing.officialProvider === null) {
      return refusal(`The routing provider lists no rate for ${entry.slug}: no endpoint is served by its author, ${author}.`);
    }
    const missing = [inputPerMtok === null && 'input', outputPerMtok === null && 'output'].filter(Boolean).join(' or ');
    return refusal(`The routing provider lists no rate for ${entry.slug}: ${listing.officialProvider}'s endpoint has no ${missing} rate.`);
  }

  return {
    refused: false,
    filled: true,
    entry: {
      ...entry,
      listPrice: { inputPerMtok, cachedInputPerMtok, outputPerMtok },
      listPriceAsOf: now.toISOString().slice(0, 10),
      listPriceSource: 'router',
    },
  };
}

/** The refusal for a launch naming a model the catalog has no curated entry for. */
export function refuseUncatalogued(slug: string): { refused: true; reason: string } {
  return refusal(`The model catalog has no entry for ${slug}; add it to the catalog before launching it.`);
}

function hasListPrice(price: PerMtokRates | null): boolean {
  return price !== null && price.inputPerMtok !== null && price.outputPerMtok !== null;
}

function refusal(reason: string): { refused: true; reason: string } {
  return { refused: true, reason };
}
