import type { Database } from '../db/open-database.js';
import { conflict, notFound } from '../errors.js';
import { listPriceChange } from './list-price-write.js';
import { listPriceOf, type Alias, type ModelEntry, type ModelWrite, type PriceObservation, type Rates } from './model-entry.js';
import { policyWrite } from './provider-policy.js';

interface ModelRow {
  slug: string;
  name: string | null;
  provider: string | null;
  description: string | null;
  aliases: string;
  provider_pin: string | null;
  logo: string | null;
  list_input: number | null;
  list_cached_input: number | null;
  list_output: number | null;
  list_as_of: string | null;
  list_source: 'hand' | 'router' | null;
  openrouter_slug: string | null;
  provider_pin_by_hand: number;
  observed_provider: string | null;
  native_quantization: string | null;
  quantization_filter: number;
  max_input_price: number | null;
  max_output_price: number | null;
  banned_providers: string;
  unknown_quantization_providers: string;
  logo_svg: string | null;
  provider_logo_url: string | null;
}

interface ObservationRow {
  model_slug: string;
  observed_at: string;
  input: number | null;
  cached_input: number | null;
  output: number | null;
  source: string;
}

const ratesOf = (row: ObservationRow): PriceObservation => ({
  observedAt: row.observed_at,
  inputPerMtok: row.input,
  cachedInputPerMtok: row.cached_input,
  outputPerMtok: row.output,
  source: row.source,
});

const sameRates = (a: Rates, b: Rates) =>
  a.inputPerMtok === b.inputPerMtok && a.cachedInputPerMtok === b.cachedInputPerMtok && a.outputPerMtok === b.outputPerMtok;

/** A write's columns, checked (policy fields 422 naming the field) and normalised. */
function writtenFields(body: ModelWrite) {
  const policy = policyWrite(body);
  return {
    name: body.name ?? null,
    provider: body.provider ?? null,
    description: body.description ?? null,
    aliases: JSON.stringify(body.aliases ?? []),
    openrouterSlug: policy.openrouterSlug,
    providerPin: policy.providerPin,
    providerPinByHand: policy.providerPin === null ? 0 : 1,
    nativeQuantization: policy.nativeQuantization,
    quantizationFilter: policy.quantizationFilter ? 1 : 0,
    maxInputPrice: policy.maxInputPrice,
    maxOutputPrice: policy.maxOutputPrice,
    bannedProviders: JSON.stringify(policy.bannedProviders),
    unknownQuantizationProviders: JSON.stringify(policy.unknownQuantizationProviders),
    logo: body.logo ?? null,
    logoSvg: body.logoSvg ?? null,
    providerLogoUrl: body.providerLogoUrl?.trim() || null,
  };
}

/** The curated catalog in SQLite, merged on read with the model ids runs name. */
export function modelCatalogStore(db: Database) {
  const selectAll = db.prepare<[], ModelRow>('SELECT * FROM models ORDER BY slug');
  const selectOne = db.prepare<[string], ModelRow>('SELECT * FROM models WHERE slug = ?');
  const runCounts = db.prepare<[], { model_id: string; runs: number }>('SELECT model_id, COUNT(*) AS runs FROM runs GROUP BY model_id');
  const runCount = db.prepare<[string], number>('SELECT COUNT(*) FROM runs WHERE model_id = ?').pluck();
  const allObservations = db.prepare<[], ObservationRow>('SELECT * FROM model_price_observations ORDER BY id');
  const observationsOf = db.prepare<[string], ObservationRow>('SELECT * FROM model_price_observations WHERE model_slug = ? ORDER BY id');
  const latestObservation = db.prepare<[string], ObservationRow>('SELECT * FROM model_price_observations WHERE model_slug = ? ORDER BY id DESC LIMIT 1');
  const insertObservation = db.prepare(
    'INSERT INTO model_price_observations (model_slug, observed_at, input, cached_input, output, source) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const FIELDS = `name = @name, provider = @provider, description = @description, aliases = @aliases, openrouter_slug = @openrouterSlug,
      provider_pin = @providerPin, provider_pin_by_hand = @providerPinByHand, native_quantization = @nativeQuantization,
      quantization_filter = @quantizationFilter, max_input_price = @maxInputPrice, max_output_price = @maxOutputPrice,
      banned_providers = @bannedProviders, unknown_quantization_providers = @unknownQuantizationProviders, logo = @logo,
      logo_svg = @logoSvg, provider_logo_url = @providerLogoUrl, updated_at = @now`;
  const insertModel = db.prepare(`INSERT INTO models (slug, created_at, updated_at) VALUES (@slug, @now, @now)`);
  const updateModel = db.prepare(`UPDATE models SET slug = @newSlug, ${FIELDS} WHERE slug = @slug`);
  const setObservedProvider = db.prepare('UPDATE models SET observed_provider = ? WHERE slug = ? AND observed_provider IS NOT ?');
  const writeListPrice = db.prepare(
    `UPDATE models SET list_input = @input, list_cached_input = @cached, list_output = @output, list_as_of = @asOf,
            list_source = @source, updated_at = @now WHERE slug = @slug`,
  );
  const deleteModel = db.prepare('DELETE FROM models WHERE slug = ?');

  function toEntry(row: ModelRow, history: PriceObservation[], runs: number): ModelEntry {
    const rates = {
      listPriceInputPerMtok: row.list_input,
      listPriceCachedInputPerMtok: row.list_cached_input,
      listPriceOutputPerMtok: row.list_output,
    };
    const listPrice = listPriceOf(rates);
    return {
      slug: row.slug,
      name: row.name,
      provider: row.provider,
      description: row.description,
      aliases: JSON.parse(row.aliases) as Alias[],
      openrouterSlug: row.openrouter_slug,
      providerPin: row.provider_pin_by_hand ? row.provider_pin : row.observed_provider,
      providerPinSetByHand: row.provider_pin_by_hand === 1,
      nativeQuantization: row.native_quantization,
      quantizationFilter: row.quantization_filter === 1,
      maxInputPrice: row.max_input_price,
      maxOutputPrice: row.max_output_price,
      bannedProviders: JSON.parse(row.banned_providers) as string[],
      unknownQuantizationProviders: JSON.parse(row.unknown_quantization_providers) as string[],
      logo: row.logo,
      logoSvg: row.logo_svg,
      providerLogoUrl: row.provider_logo_url,
      ...rates,
      listPrice,
      listPriceAsOf: listPrice ? row.list_as_of : null,
      listPriceSource: listPrice ? row.list_source : null,
      price: latestRates(history),
      priceHistory: history,
      curated: true,
      runCount: runs,
    };
  }

  function derivedEntry(slug: string, history: PriceObservation[], runs: number): ModelEntry {
    return {
      slug, name: null, provider: null, description: null, aliases: [], openrouterSlug: null, providerPin: null, providerPinSetByHand: false,
      nativeQuantization: null, quantizationFilter: true, maxInputPrice: null, maxOutputPrice: null, bannedProviders: [],
      unknownQuantizationProviders: [], logo: null, logoSvg: null, providerLogoUrl: null,
      listPriceInputPerMtok: null, listPriceCachedInputPerMtok: null, listPriceOutputPerMtok: null,
      listPrice: null, listPriceAsOf: null, listPriceSource: null,
      price: latestRates(history), priceHistory: history, curated: false, runCount: runs,
    };
  }

  function latestRates(history: PriceObservation[]): Rates | null {
    const last = history.at(-1);
    return last ? { inputPerMtok: last.inputPerMtok, cachedInputPerMtok: last.cachedInputPerMtok, outputPerMtok: last.outputPerMtok } : null;
  }

  function get(slug: string): ModelEntry | null {
    const row = selectOne.get(slug);
    const runs = runCount.get(slug) ?? 0;
    const history = observationsOf.all(slug).map(ratesOf);
    if (row) return toEntry(row, history, runs);
    return runs > 0 ? derivedEntry(slug, history, runs) : null;
  }

  function requireCurated(slug: string): ModelRow {
    const row = selectOne.get(slug);
    if (!row) throw notFound(`The model catalog has no entry ${slug}.`);
    return row;
  }

  /** A re-sent list price equal to the stored one is no write, so it keeps its source. */
  function applyListPrice(slug: string, body: ModelWrite, now: string): void {
    const change = listPriceChange(body);
    if (change.kind === 'keep') return;
    const row = selectOne.get(slug);
    if (row && row.list_input === change.inputPerMtok && row.list_cached_input === change.cachedInputPerMtok
      && row.list_output === change.outputPerMtok && row.list_as_of === change.asOf) return;
    writeListPrice.run({ slug, input: change.inputPerMtok, cached: change.cachedInputPerMtok, output: change.outputPerMtok, asOf: change.asOf, source: 'hand', now });
  }

  return {
    list(): ModelEntry[] {
      const history = new Map<string, PriceObservation[]>();
      for (const row of allObservations.all()) {
        const list = history.get(row.model_slug) ?? [];
        list.push(ratesOf(row));
        history.set(row.model_slug, list);
      }
      const runs = new Map(runCounts.all().map((row) => [row.model_id, row.runs]));
      const curated = selectAll.all().map((row) => toEntry(row, history.get(row.slug) ?? [], runs.get(row.slug) ?? 0));
      const curatedSlugs = new Set(curated.map((entry) => entry.slug));
      const derived = [...runs.entries()]
        .filter(([slug]) => !curatedSlugs.has(slug))
        .map(([slug, count]) => derivedEntry(slug, history.get(slug) ?? [], count));
      return [...curated, ...derived].sort((a, b) => a.slug.localeCompare(b.slug));
    },

    get,

    create(body: ModelWrite): ModelEntry {
      const now = new Date().toISOString();
      // Refuse a bad write before touching anything.
      listPriceChange(body);
      const fields = writtenFields(body);
      db.transaction(() => {
        if (selectOne.get(body.slug)) throw conflict(`The model catalog already has an entry ${body.slug}.`);
        insertModel.run({ slug: body.slug, now });
        updateModel.run({ slug: body.slug, newSlug: body.slug, now, ...fields });
        applyListPrice(body.slug, body, now);
      })();
      return get(body.slug)!;
    },

    /**
     * A whole write: every field the body omits is cleared, except the list price, which a
     * write naming none of its four fields keeps. `slug` in the body renames the entry.
     */
    update(slug: string, body: Partial<ModelWrite>): ModelEntry {
      const now = new Date().toISOString();
      const newSlug = body.slug ?? slug;
      const write = { ...body, slug: newSlug };
      listPriceChange(write);
      const fields = writtenFields(write);
      db.transaction(() => {
        requireCurated(slug);
        if (newSlug !== slug && selectOne.get(newSlug)) throw conflict(`The model catalog already has an entry ${newSlug}.`);
        updateModel.run({ slug, newSlug, now, ...fields });
        applyListPrice(newSlug, write, now);
      })();
      return get(newSlug)!;
    },

    remove(slug: string): void {
      requireCurated(slug);
      deleteModel.run(slug);
    },

    isCurated: (slug: string) => selectOne.get(slug) !== undefined,

    /** Stores rates the routing provider listed as the list price (the enqueue-time fill). */
    setRouterListPrice(slug: string, rates: { inputPerMtok: number; cachedInputPerMtok: number; outputPerMtok: number }, asOf: string): void {
      writeListPrice.run({ slug, input: rates.inputPerMtok, cached: rates.cachedInputPerMtok, output: rates.outputPerMtok, asOf, source: 'router', now: new Date().toISOString() });
    },

    hasBilledRate: (slug: string) => latestObservation.get(slug) !== undefined,

    /** Appends a billed-rate observation unless it equals the latest one; true when appended. */
    observeBilledRate(slug: string, rates: Rates, source: string, at = new Date()): boolean {
      return db.transaction(() => {
        const latest = latestObservation.get(slug);
        if (latest && sameRates(ratesOf(latest), rates)) return false;
        insertObservation.run(slug, at.toISOString(), rates.inputPerMtok, rates.cachedInputPerMtok, rates.outputPerMtok, source);
        return true;
      })();
    },

    curatedSlugs: () => selectAll.all().map((row) => row.slug),

    /** Records the provider seen serving the model's official endpoint, the pin of an entry none is set by hand for. */
    observeOfficialProvider(slug: string, provider: string | null): void {
      setObservedProvider.run(provider, slug, provider);
    },
  };
}

export type ModelCatalogStore = ReturnType<typeof modelCatalogStore>;
