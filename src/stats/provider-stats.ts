import { sql } from 'kysely';
import type { BackendStore } from '../db/dialect.js';

export interface SliceStats {
  runs: number;
  calls: number | null;
  totalTokens: number | null;
  cost: number | null;
  rejected: number | null;
  turns: number | null;
  working: number | null;
  errors: Record<string, number>;
  stalls: number | null;
  cacheMisses: number | null;
}

interface SliceRow {
  provider: string | null;
  model_id: string | null;
  runs: number;
  /** Runs whose first slice of this provider is in this group: summed across models, the provider's runs. */
  provider_runs: number;
  calls: number | null;
  total_tokens: number | null;
  cost: number | null;
  rejected: number | null;
  turns: number | null;
  working: number | null;
  stalls: number | null;
  cache_misses: number | null;
}

const key = (provider: string | null, modelId: string | null) => `${provider ?? '\u0000'}\u0001${modelId ?? '\u0000'}`;

function statsOf(row: SliceRow, errors: Record<string, number>): SliceStats {
  return {
    runs: row.runs,
    calls: row.calls,
    totalTokens: row.total_tokens,
    cost: row.cost === null ? null : Math.round(row.cost * 1e9) / 1e9,
    rejected: row.rejected,
    turns: row.turns,
    working: row.working,
    errors,
    stalls: row.stalls,
    cacheMisses: row.cache_misses,
  };
}

const FIGURES = ['calls', 'total_tokens', 'cost', 'rejected', 'turns', 'working', 'stalls', 'cache_misses'] as const;

/** Per-provider totals from the per-model rows; a figure no row carried stays null. */
function foldProviders(rows: readonly SliceRow[]): Map<string | null, SliceRow> {
  const totals = new Map<string | null, SliceRow>();
  for (const row of rows) {
    const held = totals.get(row.provider);
    if (!held) {
      totals.set(row.provider, { ...row, model_id: null, runs: row.provider_runs });
      continue;
    }
    held.runs += row.provider_runs;
    for (const figure of FIGURES) {
      const value = row[figure];
      if (value !== null) held[figure] = (held[figure] ?? 0) + value;
    }
  }
  return totals;
}

/** Calls descending, the null provider (or model) last. */
const byCalls = <T extends { calls: number | null }>(a: { name: string | null; stats: T }, b: { name: string | null; stats: T }) =>
  Number(a.name === null) - Number(b.name === null) || (b.stats.calls ?? 0) - (a.stats.calls ?? 0) || String(a.name).localeCompare(String(b.name));

/**
 * `GET /stats/providers`: per-provider health over stored gg runs, folded from the slices
 * lifted at store time (one aggregate per table, no record decoded), and probe evidence per
 * provider per probed model, kept apart. A figure no record carried stays null.
 */
export function providerStats({ db }: BackendStore) {
  // As the original counts them: the runs with a summary, and among them those with a non-empty slice list.
  const scanned = db.selectFrom('run_gg_stats').select((eb) => [
    eb.fn.countAll<number>().as('runs'),
    sql<number>`COALESCE(SUM(CASE WHEN has_provider_data = 1 THEN 1 ELSE 0 END), 0)`.as('with_data'),
  ]);
  // Each run counts once per group through the first-of flags set at store time, so no group counts distinct runs.
  const perModel = db.selectFrom('run_provider_slices').groupBy(['provider', 'model_id']).select((eb) => [
    'provider', 'model_id', eb.fn.sum<number>('first_of_pair').as('runs'), eb.fn.sum<number>('first_of_provider').as('provider_runs'),
    ...FIGURES.map((figure) => eb.fn.sum<number | null>(figure).as(figure)),
  ]);
  const errors = db.selectFrom('run_provider_slice_errors').groupBy(['provider', 'model_id', 'error_type'])
    .select((eb) => ['provider', 'model_id', 'error_type', eb.fn.sum<number>('n').as('n')]);
  const probes = db.selectFrom('model_probe_items as i').innerJoin('model_probes as p', 'p.id', 'i.probe_id')
    .groupBy(['i.provider', 'p.model_slug'])
    .select((eb) => [
      'i.provider', 'p.model_slug', eb.fn.countAll<number>().as('items'), eb.fn.sum<number>('i.pass').as('passes'),
      sql<number>`SUM(CASE WHEN i.error IS NOT NULL THEN 1 ELSE 0 END)`.as('errored'),
    ]);

  /** The aggregates the read needs, unfolded (what the benchmark compares the read against). */
  const aggregate = async () => {
    const [counts, perModelRows, errorRows, probeRows] = await Promise.all([
      scanned.executeTakeFirstOrThrow(), perModel.execute() as Promise<SliceRow[]>, errors.execute(), probes.execute(),
    ]);
    return { runsScanned: counts.runs, runsWithProviderData: counts.with_data, perModel: perModelRows, errors: errorRows, probes: probeRows };
  };

  const read = async () => {
    const raw = await aggregate();
    const errorsOf = new Map<string, Record<string, number>>();
    const providerErrors = new Map<string | null, Record<string, number>>();
    for (const row of raw.errors) {
      const k = key(row.provider, row.model_id);
      (errorsOf.get(k) ?? errorsOf.set(k, {}).get(k)!)[row.error_type] = row.n;
      const totals = providerErrors.get(row.provider) ?? providerErrors.set(row.provider, {}).get(row.provider)!;
      totals[row.error_type] = (totals[row.error_type] ?? 0) + row.n;
    }
    const models = new Map<string | null, Array<{ name: string | null; stats: SliceStats }>>();
    for (const row of raw.perModel) {
      const list = models.get(row.provider) ?? models.set(row.provider, []).get(row.provider)!;
      list.push({ name: row.model_id, stats: statsOf(row, errorsOf.get(key(row.provider, row.model_id)) ?? {}) });
    }
    const providers = [...foldProviders(raw.perModel).values()]
      .map((row) => ({ name: row.provider, stats: statsOf(row, providerErrors.get(row.provider) ?? {}) }))
      .sort(byCalls)
      .map(({ name, stats }) => ({
        provider: name,
        models: (models.get(name) ?? []).sort(byCalls).map((m) => ({ modelId: m.name, stats: m.stats })),
        totals: stats,
      }));

    const probeEvidence = new Map<string | null, Array<{ modelSlug: string; items: number; passes: number; errored: number }>>();
    for (const row of raw.probes) {
      const list = probeEvidence.get(row.provider) ?? probeEvidence.set(row.provider, []).get(row.provider)!;
      list.push({ modelSlug: row.model_slug, items: row.items, passes: row.passes, errored: row.errored });
    }
    const items = (list: Array<{ items: number }>) => list.reduce((sum, m) => sum + m.items, 0);
    return {
      runsScanned: raw.runsScanned,
      runsWithProviderData: raw.runsWithProviderData,
      providers,
      probes: [...probeEvidence.entries()]
        .sort(([a, am], [b, bm]) => Number(a === null) - Number(b === null) || items(bm) - items(am) || String(a).localeCompare(String(b)))
        .map(([provider, list]) => ({ provider, models: list.sort((x, y) => y.items - x.items || x.modelSlug.localeCompare(y.modelSlug)) })),
    };
  };
  /** The four statements `aggregate` runs, for the benchmark's raw side. */
  const statements = [scanned, perModel, errors, probes] as const;
  return { read, aggregate, statements };
}
