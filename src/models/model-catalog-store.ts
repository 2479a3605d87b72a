import type { Kysely, Selectable } from 'kysely';
import pg from 'pg';
import { lockedRows, sameValue, writeTransaction, type BackendStore } from '../db/dialect.js';
import type { ModelPriceObservationsTable, ModelsTable, StoreSchema } from '../db/store-schema.js';
import { conflict, notFound } from '../errors.js';
import { listPriceChange } from './list-price-write.js';
import { listPriceOf, type Alias, type ModelEntry, type ModelWrite, type PriceObservation, type Rates } from './model-entry.js';
import { policyWrite } from './provider-policy.js';

type ModelRow = Selectable<ModelsTable>;
type ObservationRow = Selectable<ModelPriceObservationsTable>;

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
    openrouter_slug: policy.openrouterSlug,
    provider_pin: policy.providerPin,
    provider_pin_by_hand: policy.providerPin === null ? 0 : 1,
    native_quantization: policy.nativeQuantization,
    quantization_filter: policy.quantizationFilter ? 1 : 0,
    max_input_price: policy.maxInputPrice,
    max_output_price: policy.maxOutputPrice,
    banned_providers: JSON.stringify(policy.bannedProviders),
    unknown_quantization_providers: JSON.stringify(policy.unknownQuantizationProviders),
    logo: body.logo ?? null,
    logo_svg: body.logoSvg ?? null,
    provider_logo_url: body.providerLogoUrl?.trim() || null,
  };
}

/** The list price columns of a write, stamped with where the rates came from. */
const listPriceColumns = (rates: { inputPerMtok: number; cachedInputPerMtok: number; outputPerMtok: number }, asOf: string, source: 'hand' | 'router', now: string) => ({
  list_input: rates.inputPerMtok,
  list_cached_input: rates.cachedInputPerMtok,
  list_output: rates.outputPerMtok,
  list_as_of: asOf,
  list_source: source,
  updated_at: now,
});

const modelRow = (db: Kysely<StoreSchema>, slug: string) => db.selectFrom('models').selectAll().where('slug', '=', slug).executeTakeFirst();

const observations = (db: Kysely<StoreSchema>) => db.selectFrom('model_price_observations').selectAll();

const latestObservation = (db: Kysely<StoreSchema>, slug: string) =>
  observations(db).where('model_slug', '=', slug).orderBy('id', 'desc').limit(1).executeTakeFirst();

/**
 * PostgreSQL's unique violation (SQLSTATE 23505). SQLite cannot race here: BEGIN IMMEDIATE
 * holds its write lock from the check to the write.
 */
const isUniqueViolation = (error: unknown) => error instanceof pg.DatabaseError && error.code === '23505';

/** An entry a delete removed right after this write committed. */
const gone = (slug: string): never => {
  throw notFound(`The model catalog has no entry ${slug}: it was deleted while this write was made.`);
};

/** The curated catalog in the store, merged on read with the model ids runs name. */
export function modelCatalogStore(store: BackendStore) {
  const { db } = store;
  const runCountOf = async (slug: string) =>
    (await db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('runs')).where('model_id', '=', slug).executeTakeFirstOrThrow()).runs;

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
      listPriceSource: listPrice ? (row.list_source as ModelEntry['listPriceSource']) : null,
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

  async function get(slug: string): Promise<ModelEntry | null> {
    const [row, runs, history] = await Promise.all([
      modelRow(db, slug),
      runCountOf(slug),
      observations(db).where('model_slug', '=', slug).orderBy('id').execute(),
    ]);
    if (row) return toEntry(row, history.map(ratesOf), runs);
    return runs > 0 ? derivedEntry(slug, history.map(ratesOf), runs) : null;
  }

  /** The entry, locked until the transaction ends: a delete racing the write waits for it, or is seen here. */
  async function requireCurated(trx: Kysely<StoreSchema>, slug: string): Promise<ModelRow> {
    const row = await lockedRows(store.engine, trx.selectFrom('models').selectAll().where('slug', '=', slug)).executeTakeFirst();
    if (!row) throw notFound(`The model catalog has no entry ${slug}.`);
    return row;
  }

  /** A re-sent list price equal to the stored one is no write, so it keeps its source. */
  async function applyListPrice(trx: Kysely<StoreSchema>, slug: string, body: ModelWrite, now: string): Promise<void> {
    const change = listPriceChange(body);
    if (change.kind === 'keep') return;
    const row = await modelRow(trx, slug);
    if (row && row.list_input === change.inputPerMtok && row.list_cached_input === change.cachedInputPerMtok
      && row.list_output === change.outputPerMtok && row.list_as_of === change.asOf) return;
    await trx.updateTable('models').set(listPriceColumns(change, change.asOf, 'hand', now)).where('slug', '=', slug).execute();
  }

  return {
    async list(): Promise<ModelEntry[]> {
      const [observed, counted, rows] = await Promise.all([
        observations(db).orderBy('id').execute(),
        db.selectFrom('runs').select(['model_id', (eb) => eb.fn.countAll<number>().as('runs')]).groupBy('model_id').execute(),
        db.selectFrom('models').selectAll().orderBy('slug').execute(),
      ]);
      const history = new Map<string, PriceObservation[]>();
      for (const row of observed) {
        const list = history.get(row.model_slug) ?? [];
        list.push(ratesOf(row));
        history.set(row.model_slug, list);
      }
      const runs = new Map(counted.map((row) => [row.model_id, row.runs]));
      const curated = rows.map((row) => toEntry(row, history.get(row.slug) ?? [], runs.get(row.slug) ?? 0));
      const curatedSlugs = new Set(curated.map((entry) => entry.slug));
      const derived = [...runs.entries()]
        .filter(([slug]) => !curatedSlugs.has(slug))
        .map(([slug, count]) => derivedEntry(slug, history.get(slug) ?? [], count));
      return [...curated, ...derived].sort((a, b) => a.slug.localeCompare(b.slug));
    },

    get,

    async create(body: ModelWrite): Promise<ModelEntry> {
      const now = new Date().toISOString();
      // Refuse a bad write before touching anything.
      listPriceChange(body);
      const fields = writtenFields(body);
      await writeTransaction(store, async (trx) => {
        const inserted = await trx.insertInto('models')
          .values({ slug: body.slug, created_at: now, ...fields, updated_at: now })
          .onConflict((oc) => oc.column('slug').doNothing())
          .executeTakeFirst();
        if (!inserted.numInsertedOrUpdatedRows) throw conflict(`The model catalog already has an entry ${body.slug}.`);
        await applyListPrice(trx, body.slug, body, now);
      });
      return (await get(body.slug)) ?? gone(body.slug);
    },

    /**
     * A whole write: every field the body omits is cleared, except the list price, which a
     * write naming none of its four fields keeps. `slug` in the body renames the entry.
     */
    async update(slug: string, body: Partial<ModelWrite>): Promise<ModelEntry> {
      const now = new Date().toISOString();
      const newSlug = body.slug ?? slug;
      const write = { ...body, slug: newSlug };
      listPriceChange(write);
      const fields = writtenFields(write);
      const taken = () => conflict(`The model catalog already has an entry ${newSlug}.`);
      await writeTransaction(store, async (trx) => {
        await requireCurated(trx, slug);
        if (newSlug !== slug && (await modelRow(trx, newSlug))) throw taken();
        await trx.updateTable('models').set({ slug: newSlug, ...fields, updated_at: now }).where('slug', '=', slug).execute();
        await applyListPrice(trx, newSlug, write, now);
      }).catch((error: unknown) => {
        // A rename onto a slug another writer created after the check above.
        throw isUniqueViolation(error) ? taken() : error;
      });
      return (await get(newSlug)) ?? gone(newSlug);
    },

    async remove(slug: string): Promise<void> {
      const deleted = await db.deleteFrom('models').where('slug', '=', slug).executeTakeFirst();
      if (!deleted.numDeletedRows) throw notFound(`The model catalog has no entry ${slug}.`);
    },

    /** Stores rates the routing provider listed as the list price (the enqueue-time fill). */
    async setRouterListPrice(slug: string, rates: { inputPerMtok: number; cachedInputPerMtok: number; outputPerMtok: number }, asOf: string): Promise<void> {
      await db.updateTable('models').set(listPriceColumns(rates, asOf, 'router', new Date().toISOString())).where('slug', '=', slug).execute();
    },

    hasBilledRate: async (slug: string) => (await latestObservation(db, slug)) !== undefined,

    /** Appends a billed-rate observation unless it equals the latest one; true when appended. */
    async observeBilledRate(slug: string, rates: Rates, source: string, at = new Date()): Promise<boolean> {
      return writeTransaction(store, async (trx) => {
        const latest = await latestObservation(trx, slug);
        if (latest && sameRates(ratesOf(latest), rates)) return false;
        await trx.insertInto('model_price_observations').values({
          model_slug: slug, observed_at: at.toISOString(), input: rates.inputPerMtok, cached_input: rates.cachedInputPerMtok, output: rates.outputPerMtok, source,
        }).execute();
        return true;
      });
    },

    curatedSlugs: async () => (await db.selectFrom('models').select('slug').orderBy('slug').execute()).map((row) => row.slug),

    /** Records the provider seen serving the model's official endpoint, the pin of an entry none is set by hand for. */
    async observeOfficialProvider(slug: string, provider: string | null): Promise<void> {
      await db.updateTable('models').set({ observed_provider: provider })
        .where('slug', '=', slug)
        .where((eb) => eb.not(sameValue(store.engine, eb.ref('observed_provider'), eb.val(provider))))
        .execute();
    },
  };
}

export type ModelCatalogStore = ReturnType<typeof modelCatalogStore>;
