import { findOfficialEndpoint } from './official-endpoint.js';
import type { PerMtokRates, RouterModelEndpoints } from './router-responses.js';

/** What `GET /models/router?slug=` answers: display fields and the official endpoint's rates. */
export interface RouterListing extends PerMtokRates {
  slug: string;
  /** The model's display name without the author prefix: "Claude Sonnet 4". */
  name: string;
  /** Who makes the model, for display: "Anthropic". */
  provider: string;
  description: string;
  /** Provider name of the endpoint the rates were read from; null when the author serves none. */
  officialProvider: string | null;
}

/**
 * Reads a model's listing off its endpoints. Rates come from the official endpoint only
 * (see findOfficialEndpoint); each is null when that endpoint lists none, and all are null
 * when the author serves no endpoint, because a third party's price is not a list price.
 *
 * OpenRouter names models "<Author>: <Model>"; that prefix is the best display name of the
 * maker (it reads "Meta" where the slug says `meta-llama`), so it becomes `provider` and is
 * dropped from `name`. Without it, the official endpoint's provider name stands in, then the
 * slug's author.
 */
export function listingFromEndpoints(model: RouterModelEndpoints): RouterListing {
  const author = model.slug.split('/')[0] ?? model.slug;
  const official = findOfficialEndpoint(author, model.endpoints);
  const separator = model.name.indexOf(': ');
  const prefixed = separator > 0 && separator + 2 < model.name.length;
  return {
    slug: model.slug,
    name: prefixed ? model.name.slice(separator + 2) : model.name,
    provider: prefixed ? model.name.slice(0, separator) : (official?.providerName ?? author),
    description: model.description,
    officialProvider: official?.providerName ?? null,
    inputPerMtok: official?.rates.inputPerMtok ?? null,
    cachedInputPerMtok: official?.rates.cachedInputPerMtok ?? null,
    outputPerMtok: official?.rates.outputPerMtok ?? null,
  };
}
