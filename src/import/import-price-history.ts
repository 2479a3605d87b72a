import type { BackendStore } from '../db/dialect.js';
import { modelCatalogStore } from '../models/model-catalog-store.js';
import type { Rates } from '../models/model-entry.js';
import { perTokenToPerMtok } from '../models/per-mtok-rate.js';
import type { SourceShape } from './detect-generation.js';
import type { TableLedger } from './ledger.js';
import { text } from './source-values.js';
import type { SourceDb, SourceRow } from './source-db.js';

/** Our `model_price_observations` columns both digests cover, in a model's series order. */
export const PRICE_DIGEST_COLUMNS = ['model_slug', 'observed_at', 'input', 'cached_input', 'output', 'source'] as const;

/** The `source` our observations carry when they came from the original's price history. */
export const IMPORTED_PRICE_SOURCE = 'import';

const RATE_COLUMNS = [['uncached_input', 'inputPerMtok'], ['cached_input', 'cachedInputPerMtok'], ['output', 'outputPerMtok']] as const;

interface Observation {
  id: string;
  at: Date;
  rates: Rates;
}

/**
 * `model_price` → `model_price_observations` (§2.2.6): per model id, in the original's id
 * order (its latest row by id is its current price, as ours is), each row with rates through
 * the catalog's `observeBilledRate`, per-token rates as exact per-Mtok decimals. Rows without
 * a rate (every row after #57) and rows equal to the model's previous observation (our series
 * keeps only changes) are skipped, counted. A model whose history here is already the mapped
 * series, or a prefix of it written by a killed import, is finished; one holding other
 * observations keeps them, and the original's history of it is skipped, named.
 */
export async function importPriceHistory(deps: { source: SourceDb; shape: SourceShape; store: BackendStore; dryRun: boolean; ledger: TableLedger }): Promise<void> {
  const { source, shape, store, ledger } = deps;
  ledger.digests(PRICE_DIGEST_COLUMNS);
  const rated = shape.has('model_price', 'output');
  const catalog = modelCatalogStore(store);
  // One model's series at a time: the ids a page needs are the distinct model ids.
  const models = await source.all('SELECT DISTINCT model_id FROM model_price ORDER BY model_id');
  for (const { model_id } of models) {
    const slug = text(model_id)!;
    const rows = await source.all('SELECT * FROM model_price WHERE model_id = ? ORDER BY id', [model_id]);
    ledger.read += rows.length;
    if (!rated) {
      ledger.skipAll('no rates: the original dropped its price history at #57 (its facts have no home here)', rows.length);
      continue;
    }
    const series: Observation[] = [];
    for (const row of rows) {
      const id = text(row.id)!;
      let rates: Rates;
      try {
        rates = ratesOf(row);
      } catch (error) {
        ledger.refuse((error as Error).message, id);
        continue;
      }
      if (rates.inputPerMtok === null && rates.cachedInputPerMtok === null && rates.outputPerMtok === null) {
        ledger.skip('no rates observed in this row', id);
        continue;
      }
      const at = new Date(text(row.observed_at) ?? '');
      if (Number.isNaN(at.getTime())) {
        ledger.refuse(`observed_at ${JSON.stringify(text(row.observed_at))} is not a time`, id);
        continue;
      }
      const previous = series.at(-1);
      if (previous && sameRates(previous.rates, rates)) {
        ledger.skip("equal to the model's previous observation (our series keeps changes only)", id);
        continue;
      }
      series.push({ id, at, rates });
    }
    const mapped = series.map((o) => [slug, o.at.toISOString(), o.rates.inputPerMtok, o.rates.cachedInputPerMtok, o.rates.outputPerMtok, IMPORTED_PRICE_SOURCE]);
    const held = (await store.db.selectFrom('model_price_observations').select(PRICE_DIGEST_COLUMNS).where('model_slug', '=', slug).orderBy('id').execute())
      .map((row) => PRICE_DIGEST_COLUMNS.map((c) => row[c]));
    const samePrefix = held.length <= mapped.length && held.every((row, i) => row.every((value, j) => String(value) === String(mapped[i]![j])));
    if (!samePrefix) {
      for (const o of series) ledger.skip('the model already has a price history here that no import of this source wrote (kept; its current price stays ours)', o.id);
      continue;
    }
    if (!deps.dryRun) {
      for (const o of series.slice(held.length)) {
        if (await catalog.observeBilledRate(slug, o.rates, IMPORTED_PRICE_SOURCE, o.at)) ledger.written += 1;
      }
    }
    ledger.imported += series.length;
    for (const values of mapped) ledger.mapped!.source.add(values);
    if (deps.dryRun) continue;
    const after = await store.db.selectFrom('model_price_observations').select(PRICE_DIGEST_COLUMNS).where('model_slug', '=', slug).orderBy('id').execute();
    for (const row of after) ledger.mapped!.target.add(PRICE_DIGEST_COLUMNS.map((c) => row[c]));
  }
}

/** A row's per-token rates as per Mtok, exactly; a rate that does not convert is refused, naming its column. */
function ratesOf(row: SourceRow): Rates {
  const rates: Rates = { inputPerMtok: null, cachedInputPerMtok: null, outputPerMtok: null };
  for (const [column, field] of RATE_COLUMNS) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    const rate = perTokenToPerMtok(typeof value === 'number' ? value : String(value));
    if (rate === null) throw new Error(`${column} ${String(value)} is not a price`);
    rates[field] = rate;
  }
  return rates;
}

const sameRates = (a: Rates, b: Rates) => a.inputPerMtok === b.inputPerMtok && a.cachedInputPerMtok === b.cachedInputPerMtok && a.outputPerMtok === b.outputPerMtok;
