/** USD per million tokens; null where no rate is known. */
export interface Rates {
  inputPerMtok: number | null;
  cachedInputPerMtok: number | null;
  outputPerMtok: number | null;
}

export interface Alias {
  alias: string;
  harnessFamily: string;
}

export interface PriceObservation extends Rates {
  observedAt: string;
  source: string;
}

/** A catalog entry as `GET /models` serves it. */
export interface ModelEntry {
  slug: string;
  name: string | null;
  provider: string | null;
  description: string | null;
  aliases: Alias[];
  providerPin: string | null;
  logo: string | null;
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
  providerPin?: string | null;
  logo?: string | null;
  listPriceInputPerMtok?: number | null;
  listPriceCachedInputPerMtok?: number | null;
  listPriceOutputPerMtok?: number | null;
  listPriceAsOf?: string | null;
}

export function listPriceOf(entry: Pick<ModelEntry, 'listPriceInputPerMtok' | 'listPriceCachedInputPerMtok' | 'listPriceOutputPerMtok'>): ModelEntry['listPrice'] {
  const { listPriceInputPerMtok: input, listPriceCachedInputPerMtok: cached, listPriceOutputPerMtok: output } = entry;
  return input === null || cached === null || output === null ? null : { inputPerMtok: input, cachedInputPerMtok: cached, outputPerMtok: output };
}
