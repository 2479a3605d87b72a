import type { ModelEntry } from './model-entry.js';
import { findOfficialEndpoint } from './official-endpoint.js';
import { providerKey, QUANTIZATION_RANK, quantizationRank } from './quantization.js';
import type { RouterEndpoint } from './router-responses.js';

export interface Candidate {
  provider: string;
  /** The level its endpoint declares, trimmed and lower-cased; `unknown` when it declares none. */
  quantization: string;
  /** The model's developer serves this endpoint (the hand-set pin, else the official endpoint). */
  developer: boolean;
  /** USD per Mtok. */
  inputPrice: number;
  outputPrice: number;
  cacheReadPrice: number;
  /** Faults per call over stored gg runs of the model on this provider; null without calls. */
  faultRate: number | null;
}

export interface CandidateList {
  modelId: string;
  nativeQuantization: string | null;
  candidates: Candidate[];
  /** Why the list is empty (the first filter that emptied it); null when it is not. */
  refusal: string | null;
}

type Policy = Pick<ModelEntry, 'providerPin' | 'providerPinSetByHand' | 'nativeQuantization' | 'quantizationFilter' | 'maxInputPrice' | 'maxOutputPrice' | 'bannedProviders' | 'unknownQuantizationProviders'>;

const isFlex = (endpoint: RouterEndpoint) => endpoint.tag !== null && /(^|[/:_-])flex($|[/:_-])/i.test(endpoint.tag);
const isUnknownLevel = (endpoint: RouterEndpoint) => quantizationRank(endpoint.quantization) === null;
const usd = (n: number) => `$${n}`;

/**
 * The provider candidates the next gg run of a model would use, for a run that sends
 * `tools` and `tool_choice` (open-points, "Gg candidates" and its third round). Filters, in
 * order, each naming the refusal when it empties the list: flex endpoints; a native level must
 * be known (the entry's, else the finest declared) and a ceiling must exist (the developer's
 * first endpoint with both prices, else the entry's), as the original's
 * `provider_candidates` checks before filtering; the native quantization level; the price
 * ceiling; a cache-read price; tools and tool_choice support; the ban list.
 * One candidate per provider, its cheapest passing endpoint; the developer first, then
 * fault rate (null as zero), input price, output price and name.
 */
export function ggCandidates(
  modelId: string,
  policy: Policy,
  endpoints: readonly RouterEndpoint[],
  faultRateOf: (provider: string) => number | null,
): CandidateList {
  const developerKey = developerProviderKey(modelId, policy, endpoints);
  const refuse = (refusal: string, nativeQuantization: string | null): CandidateList => ({ modelId, nativeQuantization, candidates: [], refusal });

  if (endpoints.length === 0) return refuse(`The routing provider lists no endpoint for ${modelId}.`, policy.nativeQuantization);
  let left = endpoints.filter((e) => !isFlex(e));
  if (left.length === 0) return refuse('Every endpoint the routing provider lists is a flex endpoint.', policy.nativeQuantization);

  // As the original's `provider_candidates`: the native level must be known, then a ceiling, before any endpoint is filtered.
  const native = levelOf(policy.nativeQuantization) ?? bestDeclaredLevel(left);
  if (policy.quantizationFilter && native === null) {
    return refuse('No endpoint declares a quantization level, and the entry sets no native quantization.', null);
  }
  const developerRates = developerKey === null ? undefined : left.find((e) => providerKey(e.providerName) === developerKey
    && e.rates.inputPerMtok !== null && e.rates.outputPerMtok !== null);
  const ceiling = developerRates
    ? { input: developerRates.rates.inputPerMtok!, output: developerRates.rates.outputPerMtok!, what: "the developer endpoint's rates" }
    : policy.maxInputPrice !== null && policy.maxOutputPrice !== null
      ? { input: policy.maxInputPrice, output: policy.maxOutputPrice, what: "the entry's price ceiling" }
      : null;
  if (!ceiling) {
    return refuse("The routing provider lists no priced endpoint from the model's developer, and the entry sets no price ceiling.", native);
  }

  if (policy.quantizationFilter) {
    const nativeRank = quantizationRank(native);
    const unknownOk = new Set(policy.unknownQuantizationProviders.map(providerKey));
    left = left.filter((e) => (nativeRank !== null && quantizationRank(e.quantization) === nativeRank)
      || levelOf(e.quantization) === native
      || (isUnknownLevel(e) && unknownOk.has(providerKey(e.providerName))));
    if (left.length === 0) return refuse(`No endpoint serves the model at its native quantization, ${native}.`, native);
  }

  left = left.filter((e) => e.rates.inputPerMtok !== null && e.rates.outputPerMtok !== null
    && e.rates.inputPerMtok <= ceiling.input && e.rates.outputPerMtok <= ceiling.output);
  if (left.length === 0) {
    return refuse(`Every endpoint left costs more than ${ceiling.what} (${usd(ceiling.input)} in, ${usd(ceiling.output)} out per Mtok).`, native);
  }

  left = left.filter((e) => e.rates.cachedInputPerMtok !== null);
  if (left.length === 0) return refuse('No endpoint left lists a cache-read price.', native);

  left = left.filter((e) => e.supportedParameters?.includes('tools') && e.supportedParameters.includes('tool_choice'));
  if (left.length === 0) return refuse('No endpoint left supports both tools and tool_choice.', native);

  const banned = new Set(policy.bannedProviders.map(providerKey));
  left = left.filter((e) => !banned.has(providerKey(e.providerName)));
  if (left.length === 0) return refuse("Every endpoint left is on the entry's banned providers list.", native);

  const cheapest = new Map<string, RouterEndpoint>();
  for (const endpoint of left) {
    const key = providerKey(endpoint.providerName);
    const held = cheapest.get(key);
    if (!held || priceOrder(endpoint, held) < 0) cheapest.set(key, endpoint);
  }
  const candidates = [...cheapest.values()].map((e): Candidate => ({
    provider: e.providerName,
    quantization: levelOf(e.quantization) ?? UNKNOWN_LEVEL,
    developer: providerKey(e.providerName) === developerKey,
    inputPrice: e.rates.inputPerMtok!,
    outputPrice: e.rates.outputPerMtok!,
    cacheReadPrice: e.rates.cachedInputPerMtok!,
    faultRate: faultRateOf(e.providerName),
  }));
  candidates.sort((a, b) => Number(b.developer) - Number(a.developer)
    || (a.faultRate ?? 0) - (b.faultRate ?? 0)
    || a.inputPrice - b.inputPrice
    || a.outputPrice - b.outputPrice
    || a.provider.localeCompare(b.provider));
  return { modelId, nativeQuantization: native, candidates, refusal: null };
}

/** A level as the original compares and answers it: trimmed and lower-cased; null when blank or absent. */
function levelOf(level: string | null | undefined): string | null {
  const trimmed = level?.trim().toLowerCase();
  return trimmed ? trimmed : null;
}

/** The level a candidate whose endpoint declares none is answered with, as the routing provider spells it. */
const UNKNOWN_LEVEL = 'unknown';

/** The hand-set pin, else the official endpoint's provider; null when neither is known. */
function developerProviderKey(modelId: string, policy: Policy, endpoints: readonly RouterEndpoint[]): string | null {
  if (policy.providerPinSetByHand && policy.providerPin) return providerKey(policy.providerPin);
  const official = findOfficialEndpoint(modelId.split('/')[0] ?? modelId, endpoints);
  return official ? providerKey(official.providerName) : null;
}

/** The finest level any endpoint declares, as its lowercase name; null when none declares one. */
function bestDeclaredLevel(endpoints: readonly RouterEndpoint[]): string | null {
  let best: string | null = null;
  for (const endpoint of endpoints) {
    const rank = quantizationRank(endpoint.quantization);
    if (rank !== null && (best === null || rank < QUANTIZATION_RANK[best]!)) best = endpoint.quantization!.trim().toLowerCase();
  }
  return best;
}

function priceOrder(a: RouterEndpoint, b: RouterEndpoint): number {
  return a.rates.inputPerMtok! - b.rates.inputPerMtok! || a.rates.outputPerMtok! - b.rates.outputPerMtok!;
}
