/** USD per million tokens; null where no rate is known. */
export interface Rates {
  inputPerMtok: number | null;
  cachedInputPerMtok: number | null;
  outputPerMtok: number | null;
}

/** A model id the entry claims, with the harness family that names the model so. */
export interface Alias {
  slug: string;
  harnessFamily: string;
}

export interface PriceObservation extends Rates {
  observedAt: string;
  source: string;
}

/** What a gg run's provider candidate list is filtered by (open-points, "Gg candidates"). */
export interface ProviderPolicy {
  /** Lowercase level (fp32 … int4) set by hand, or null for the best level the listing declares. */
  nativeQuantization: string | null;
  /** False lets every quantization level through. */
  quantizationFilter: boolean;
  /** The price ceiling when the routing provider lists no developer endpoint, USD per Mtok; both or neither. */
  maxInputPrice: number | null;
  maxOutputPrice: number | null;
  bannedProviders: string[];
  /** Providers accepted although their endpoints declare `unknown` quantization. */
  unknownQuantizationProviders: string[];
}

/** A catalog entry as the store reads it (rates per Mtok; the wire converts, see model-wire.ts). */
export interface ModelEntry extends ProviderPolicy {
  slug: string;
  name: string | null;
  provider: string | null;
  description: string | null;
  aliases: Alias[];
  /** The model's id at the routing provider when it differs from `slug`. */
  openrouterSlug: string | null;
  /** The hand-set pin, else the provider observed serving the official endpoint. */
  providerPin: string | null;
  providerPinSetByHand: boolean;
  logo: string | null;
  logoSvg: string | null;
  providerLogoUrl: string | null;
  listPriceInputPerMtok: number | null;
  listPriceCachedInputPerMtok: number | null;
  listPriceOutputPerMtok: number | null;
  /** Non-null only once all three rates are set. */
  listPrice: { inputPerMtok: number; cachedInputPerMtok: number; outputPerMtok: number } | null;
  listPriceAsOf: string | null;
  listPriceSource: 'hand' | 'router' | null;
  /** Latest billed rate. */
  price: Rates | null;
  priceHistory: PriceObservation[];
  /** False for an entry derived from runs alone. */
  curated: boolean;
  runCount: number;
}

/** What `POST /models` and `PUT /models/{slug}` accept. */
export interface ModelWrite {
  slug: string;
  name?: string | null;
  provider?: string | null;
  description?: string | null;
  aliases?: Alias[];
  openrouterSlug?: string | null;
  providerPin?: string | null;
  nativeQuantization?: string | null;
  quantizationFilter?: boolean | null;
  maxInputPrice?: number | null;
  maxOutputPrice?: number | null;
  bannedProviders?: string[] | null;
  unknownQuantizationProviders?: string[] | null;
  logo?: string | null;
  logoSvg?: string | null;
  providerLogoUrl?: string | null;
  listPriceInputPerMtok?: number | null;
  listPriceCachedInputPerMtok?: number | null;
  listPriceOutputPerMtok?: number | null;
  listPriceAsOf?: string | null;
}

export function listPriceOf(entry: Pick<ModelEntry, 'listPriceInputPerMtok' | 'listPriceCachedInputPerMtok' | 'listPriceOutputPerMtok'>): ModelEntry['listPrice'] {
  const { listPriceInputPerMtok: input, listPriceCachedInputPerMtok: cached, listPriceOutputPerMtok: output } = entry;
  return input === null || cached === null || output === null ? null : { inputPerMtok: input, cachedInputPerMtok: cached, outputPerMtok: output };
}

/** The id to ask the routing provider about: the entry's own when it says so, else its slug. */
export function routingIdOf(entry: Pick<ModelEntry, 'slug' | 'openrouterSlug'>): string {
  return entry.openrouterSlug ?? entry.slug;
}
