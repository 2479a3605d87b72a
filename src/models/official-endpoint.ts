import type { RouterEndpoint } from './router-responses.js';

/**
 * Authors that serve their models under another name. Qwen models are served by Alibaba
 * Cloud, whose provider name shares nothing with the `qwen/` author.
 */
const AUTHOR_ALIASES: Readonly<Record<string, readonly string[]>> = {
  qwen: ['alibaba'],
};

// Below this length a prefix says too little ("ai" would match "ai21" and "aion").
const MIN_PREFIX = 3;

/**
 * The official endpoint of a model: the one served by the model's author, whose price is
 * the list price. The author is the part of the slug before the slash.
 *
 * Names are compared compacted (lowercase, letters and digits only), against both the
 * endpoint's `provider_name` and the family of its `tag` (the part before any `/`):
 *   1. an exact match wins: `x-ai` ~ "xAI", `z-ai` ~ "Z.AI", `moonshotai` ~ "Moonshot AI";
 *   2. otherwise one may be a prefix of the other, at least 3 characters long:
 *      `meta-llama` ~ "Meta", `mistralai` ~ "Mistral", `google` ~ "Google AI Studio";
 *   3. an author in AUTHOR_ALIASES also matches its aliases, exactly or by prefix.
 * Among endpoints of equal rank the provider's own order decides (the first listed).
 * Returns null when no endpoint is the author's, e.g. an open-weights model served only by
 * third parties.
 */
export function findOfficialEndpoint(author: string, endpoints: readonly RouterEndpoint[]): RouterEndpoint | null {
  const authorNames = [compact(author), ...(AUTHOR_ALIASES[author.toLowerCase()] ?? [])];
  let best: { endpoint: RouterEndpoint; rank: number } | null = null;
  for (const endpoint of endpoints) {
    const rank = matchRank(authorNames, endpointNames(endpoint));
    if (rank > 0 && (!best || rank > best.rank)) best = { endpoint, rank };
  }
  return best?.endpoint ?? null;
}

const EXACT = 2;
const PREFIX = 1;

function matchRank(authorNames: readonly string[], providerNames: readonly string[]): number {
  let rank = 0;
  for (const a of authorNames) {
    for (const p of providerNames) {
      if (a === '' || p === '') continue;
      if (a === p) return EXACT;
      const shorter = a.length < p.length ? a : p;
      const longer = shorter === a ? p : a;
      if (shorter.length >= MIN_PREFIX && longer.startsWith(shorter)) rank = PREFIX;
    }
  }
  return rank;
}

function endpointNames(endpoint: RouterEndpoint): string[] {
  const names = [compact(endpoint.providerName)];
  const family = endpoint.tag?.split('/')[0];
  if (family) names.push(compact(family));
  return names;
}

function compact(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}
