import type { BackendStore } from '../db/dialect.js';
import { modelCatalogStore } from '../models/model-catalog-store.js';
import type { ModelWrite } from '../models/model-entry.js';
import { perTokenToPerMtok } from '../models/per-mtok-rate.js';
import type { SourceShape } from './detect-generation.js';
import type { TableLedger } from './ledger.js';
import { flag, parseJson, placeholders, text } from './source-values.js';
import type { SourceDb, SourceRow } from './source-db.js';

/** The models columns both digests cover: what the mapping decides, not the stamps `create` sets. */
export const MODEL_DIGEST_COLUMNS = [
  'slug', 'name', 'provider', 'description', 'aliases', 'openrouter_slug', 'provider_pin', 'list_input', 'list_cached_input', 'list_output',
  'list_as_of', 'list_source', 'native_quantization', 'quantization_filter', 'max_input_price', 'max_output_price', 'banned_providers',
  'unknown_quantization_providers', 'logo_svg', 'provider_logo_url',
] as const;

export interface ModelImportDeps {
  source: SourceDb;
  shape: SourceShape;
  store: BackendStore;
  dryRun: boolean;
  batchRows: number;
  ledger(table: string): TableLedger;
}

/**
 * `model` + `model_alias` → `models`, before runs (a record without a cost is priced at its
 * model's list price). Each entry goes through the catalog's own `create`, so its policy and
 * list-price checks apply (a write it refuses is refused here, named); a router list price
 * through `setRouterListPrice`. Per-token list prices become per-Mtok decimal-exactly.
 */
export async function importModels(deps: ModelImportDeps): Promise<void> {
  const { source, shape, store } = deps;
  const models = deps.ledger('model').digests(MODEL_DIGEST_COLUMNS);
  const aliases = shape.has('model_alias') ? deps.ledger('model_alias') : null;
  const catalog = modelCatalogStore(store);
  for await (const page of source.pages('model', ['slug'], deps.batchRows)) {
    const slugs = page.map((row) => text(row.slug)!);
    const aliasRows = aliases ? await source.all(`SELECT * FROM model_alias WHERE model_slug IN ${placeholders(slugs.length)} ORDER BY id`, slugs) : [];
    for (const row of page) {
      models.read += 1;
      const slug = text(row.slug)!;
      const own = aliasRows.filter((a) => text(a.model_slug) === slug);
      if (aliases) aliases.read += own.length;
      let write: { body: ModelWrite; router: { inputPerMtok: number; cachedInputPerMtok: number; outputPerMtok: number; asOf: string } | null };
      try {
        write = modelWrite(row, own);
      } catch (error) {
        models.refuse((error as Error).message, slug);
        own.forEach((a) => aliases!.refuse('its model was refused', text(a.alias) ?? slug));
        continue;
      }
      const expected = expectedRow(write.body, write.router);
      const held = await store.db.selectFrom('models').select(MODEL_DIGEST_COLUMNS).where('slug', '=', slug).executeTakeFirst();
      if (held && !MODEL_DIGEST_COLUMNS.every((c) => String(held[c] ?? '') === String(expected[c] ?? ''))) {
        models.refuse('conflict: the catalog already holds a different entry under this slug (never overwritten)', slug);
        own.forEach((a) => aliases!.refuse('its model was refused (a conflict)', text(a.alias) ?? slug));
        continue;
      }
      if (!held && !deps.dryRun) {
        try {
          await catalog.create(write.body);
          if (write.router) await catalog.setRouterListPrice(slug, write.router, write.router.asOf);
        } catch (error) {
          models.refuse(`the catalog refuses it: ${(error as Error).message}`, slug);
          own.forEach((a) => aliases!.refuse('its model was refused', text(a.alias) ?? slug));
          continue;
        }
        models.written += 1;
      }
      models.imported += 1;
      if (aliases) aliases.imported += own.length;
      models.mapped!.source.add(MODEL_DIGEST_COLUMNS.map((c) => expected[c]));
      if (deps.dryRun) continue;
      const after = await store.db.selectFrom('models').select(MODEL_DIGEST_COLUMNS).where('slug', '=', slug).executeTakeFirst();
      if (after) models.mapped!.target.add(MODEL_DIGEST_COLUMNS.map((c) => after[c]));
    }
  }
}

/** A per-token price column as per Mtok, exactly; a price that does not convert is refused, naming the column. */
function perMtok(row: SourceRow, column: string): number | null {
  const value = row[column];
  if (value === null || value === undefined) return null;
  const rate = perTokenToPerMtok(typeof value === 'number' ? value : String(value));
  if (rate === null) throw new Error(`${column} ${String(value)} is not a price`);
  return rate;
}

function modelWrite(row: SourceRow, aliasRows: SourceRow[]) {
  const list = (value: unknown) => {
    const parsed = parseJson(value);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  };
  const rates = { inputPerMtok: perMtok(row, 'list_price_input'), cachedInputPerMtok: perMtok(row, 'list_price_cached_input'), outputPerMtok: perMtok(row, 'list_price_output') };
  const priced = rates.inputPerMtok !== null && rates.outputPerMtok !== null;
  // The original lists no separate cached rate for some entries: it bills cached input at the input rate.
  const whole = priced ? { inputPerMtok: rates.inputPerMtok!, cachedInputPerMtok: rates.cachedInputPerMtok ?? rates.inputPerMtok!, outputPerMtok: rates.outputPerMtok! } : null;
  const asOf = text(row.list_price_as_of)?.slice(0, 10) ?? null;
  const router = whole !== null && text(row.list_price_source) === 'openrouter' ? { ...whole, asOf: asOf ?? new Date().toISOString().slice(0, 10) } : null;
  const hand = whole !== null && router === null ? whole : null;
  const body: ModelWrite = {
    slug: text(row.slug)!,
    name: text(row.display_name),
    provider: text(row.provider),
    description: text(row.description_md),
    aliases: aliasRows.map((a) => ({ slug: text(a.alias)!, harnessFamily: text(a.harness_family) ?? 'openrouter' })),
    openrouterSlug: text(row.openrouter_slug),
    providerPin: text(row.provider_pin) ?? text(row.provider_slug),
    nativeQuantization: text(row.native_quantization),
    // On before the column existed (#49), as the original's default.
    quantizationFilter: row.quantization_filter === undefined ? true : flag(row.quantization_filter),
    maxInputPrice: row.max_input_price === undefined || row.max_input_price === null ? null : Number(row.max_input_price),
    maxOutputPrice: row.max_output_price === undefined || row.max_output_price === null ? null : Number(row.max_output_price),
    bannedProviders: list(row.banned_providers),
    unknownQuantizationProviders: list(row.unknown_quantization_providers),
    logoSvg: text(row.provider_logo_svg),
    providerLogoUrl: text(row.provider_logo_url),
    ...(hand ? { listPriceInputPerMtok: hand.inputPerMtok, listPriceCachedInputPerMtok: hand.cachedInputPerMtok, listPriceOutputPerMtok: hand.outputPerMtok, listPriceAsOf: asOf ?? '1970-01-01' } : {}),
  };
  return { body, router };
}

/** The row `create` (and `setRouterListPrice`) should leave, in the digest's columns. */
function expectedRow(body: ModelWrite, router: { inputPerMtok: number; cachedInputPerMtok: number; outputPerMtok: number; asOf: string } | null): Record<string, unknown> {
  const list = router ?? (body.listPriceInputPerMtok != null
    ? { inputPerMtok: body.listPriceInputPerMtok, cachedInputPerMtok: body.listPriceCachedInputPerMtok!, outputPerMtok: body.listPriceOutputPerMtok!, asOf: body.listPriceAsOf! }
    : null);
  return {
    slug: body.slug, name: body.name, provider: body.provider, description: body.description, aliases: JSON.stringify(body.aliases ?? []),
    openrouter_slug: body.openrouterSlug, provider_pin: body.providerPin,
    list_input: list?.inputPerMtok ?? null, list_cached_input: list?.cachedInputPerMtok ?? null, list_output: list?.outputPerMtok ?? null,
    list_as_of: list?.asOf ?? null, list_source: list ? (router ? 'router' : 'hand') : null,
    native_quantization: body.nativeQuantization, quantization_filter: body.quantizationFilter ? 1 : 0, max_input_price: body.maxInputPrice,
    max_output_price: body.maxOutputPrice, banned_providers: JSON.stringify(body.bannedProviders ?? []),
    unknown_quantization_providers: JSON.stringify(body.unknownQuantizationProviders ?? []), logo_svg: body.logoSvg, provider_logo_url: body.providerLogoUrl,
  };
}
