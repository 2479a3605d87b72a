import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresPool, postgresStore, sqliteStore, type BackendStore, type Engine } from '../../src/db/dialect.js';
import { migratePostgres } from '../../src/db/migrate-postgres.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { decodeRunRecord } from '../../src/runs/decode-run-record.js';
import { cabinetStats } from '../../src/runs/cabinet-stats.js';
import { runRows } from '../../src/runs/run-rows.js';
import { modelAccuracy } from '../../src/stats/model-accuracy.js';
import { providerFaultRates } from '../../src/stats/provider-fault-rates.js';
import { providerStats } from '../../src/stats/provider-stats.js';
import { statsReader } from '../../src/stats/stats-reader.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';
import { testDatabase } from '../helpers/postgres.js';
import { ggRunRecord, slice } from './gg-run-records.js';

const A = 'acme/a';
const B = 'beta/b';
const NOW = '2026-11-27T12:00:00.000Z';

/**
 * gg runs covering what the engines could answer differently: a modelless and a providerless
 * slice (NULL grouping), JSON counts read per key (tool failures, errors by type), runs of
 * several models (NULL sole model), a rollup without slices, and a tool-calling run with
 * failures but no total.
 */
const RECORDS = [
  ggRunRecord({ id: 'tool-1', model: A, summary: {
    executionMode: 'tool_calling',
    providerStats: [
      slice('Together', A, { calls: 10, stalls: 1, cacheMisses: 2, errors: { model_timeout: 1, program_throw: 2 } }),
      slice(null, null, { calls: 4, cost: null }),
    ],
    toolCalls: 12, errors: { toolFailures: { timeout: 2, bad_args: 1 } },
  } }),
  ggRunRecord({ id: 'rac-several', model: A, summary: {
    executionMode: 'responses_as_code',
    slotCosts: [{ slot: 'primary', modelId: A }, { slot: 'worker', modelId: B }],
    providerStats: [
      slice('Together', A, { calls: 3, turns: 5, working: 3, errors: { transpile_compile: 1, model_parse: 1 }, cost: { comparable: 0.1, actual: 0 } }),
      slice('Fireworks', B, { calls: 6, turns: 2, working: 2, cost: { comparable: 0.2, actual: 0 } }),
      slice('Together', null, { calls: 1, turns: 1, working: 0 }),
    ],
  } }),
  ggRunRecord({ id: 'rac-rollup', model: B, summary: {
    executionMode: 'responses_as_code',
    errors: { turns: 4, errors: 1, transpile: 1, programFault: 0, sandboxLimit: 0, modelApi: 0, missingCompletion: 0, byType: { transpile_syntax: 1 } },
  } }),
  ggRunRecord({ id: 'rac-unattributable', model: A, summary: {
    executionMode: 'responses_as_code', slotCosts: [{ slot: 'worker', modelId: B }], errors: { turns: 2, errors: 0 },
  } }),
  ggRunRecord({ id: 'tool-no-total', model: B, summary: { executionMode: 'tool_calling', toolCalls: 0, toolFailures: 3 } }),
];

const TABLES = ['runs', 'run_gg_stats', 'run_provider_slices', 'run_provider_slice_errors'] as const;

/** The rows the run store lifts from `RECORDS`, lifted once on SQLite by the store's own code. */
type LiftedRows = Record<(typeof TABLES)[number], Array<Record<string, unknown>>>;

async function liftedRows(): Promise<LiftedRows> {
  const db: Database = openDatabase(':memory:');
  try {
    const rows = runRows(sqliteStore<StoreSchema>(db));
    for (const record of RECORDS) {
      const decoded = decodeRunRecord(record);
      await rows.store({ id: String(record.id), jobId: null, record: JSON.stringify(record), recordFormat: 1, decodeError: null, events: '[]', lifted: decoded.lifted });
    }
    return Object.fromEntries(TABLES.map((table) => [table, db.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>])) as LiftedRows;
  } finally {
    db.close();
  }
}

/** The same rows in `store`, with two probes of provider evidence. */
async function seed(store: BackendStore): Promise<void> {
  const rows = await liftedRows();
  // The tables' columns are the same on both engines; the rows are copied as SQLite holds them.
  for (const table of TABLES) await store.db.insertInto(table).values(rows[table] as never).execute();
  const probe = (id: string, modelSlug: string) => ({
    id, model_slug: modelSlug, openrouter_slug: modelSlug, provider: null, language: null, samples: 1, max_tokens: 100, status: 'complete',
    error: null, verdict: null, pass_rate: null, call_count: 3, requests: '[]', created_at: NOW, finished_at: NOW, runner: null,
  });
  await store.db.insertInto('model_probes').values([probe('p1', A), probe('p2', B)]).execute();
  const item = (probeId: string, provider: string | null, pass: number, error: string | null) => ({
    probe_id: probeId, language: 'ts', scenario: 's', prompt: 'p', sample: 0, provider, finish_reason: null, native_finish_reason: null, label: null,
    pass, program_text: null, response_text: null, reasoning_text: null, prompt_tokens: null, completion_tokens: null, cost: null, duration_ms: 1,
    error, created_at: NOW,
  });
  await store.db.insertInto('model_probe_items').values([
    item('p1', 'Together', 1, null), item('p1', 'Together', 0, 'boom'), item('p1', null, 0, null), item('p2', 'Together', 1, null),
  ]).execute();
}

const stores = engineStores();
const seeded: Partial<Record<Engine, BackendStore>> = {};
beforeAll(async () => {
  for (const engine of ENGINES) {
    const store = await stores.fresh(engine);
    await seed(store);
    seeded[engine] = store;
  }
});

describe.each(ENGINES)('statistics on %s', (engine) => {
  const store = () => seeded[engine]!;

  it('folds provider slices with the null provider and model last, and probe evidence per provider', async () => {
    const stats = await providerStats(store()).read();
    expect({ scanned: stats.runsScanned, withData: stats.runsWithProviderData }).toEqual({ scanned: 5, withData: 2 });
    expect(stats.providers.map((p) => [p.provider, p.models.map((m) => m.modelId)])).toEqual([
      ['Together', [A, null]], ['Fireworks', [B]], [null, [A]],
    ]);
    const together = stats.providers[0]!;
    // Two runs have Together slices; the run of several models has two (one modelless), counted once.
    expect(together.totals).toEqual({
      runs: 2, calls: 14, totalTokens: 2880, cost: 0.14, rejected: 0, turns: 11, working: 7,
      errors: { model_parse: 1, model_timeout: 1, program_throw: 2, transpile_compile: 1 }, stalls: 1, cacheMisses: 2,
    });
    expect(together.models[1]).toEqual({ modelId: null, stats: expect.objectContaining({ runs: 1, calls: 1, errors: {} }) });
    // The providerless slice's model is the run's sole model; its cost was never recorded.
    expect(stats.providers[2]!.totals).toMatchObject({ runs: 1, calls: 4, cost: null });
    expect(stats.probes).toEqual([
      { provider: 'Together', models: [{ modelSlug: A, items: 2, passes: 1, errored: 1 }, { modelSlug: B, items: 1, passes: 1, errored: 0 }] },
      { provider: null, models: [{ modelSlug: A, items: 1, passes: 0, errored: 0 }] },
    ]);
  });

  it('splits model accuracy by mode, reading JSON counts per key, and counts unattributable runs', async () => {
    expect(await modelAccuracy(store())()).toEqual({
      models: [
        {
          modelId: A,
          rac: { runs: 1, turns: 5, valid: 3, compile: 1, runtime: 0, modelErrors: 1, missing: 0, byType: { model_parse: 1, transpile_compile: 1 }, approximateRuns: 0 },
          toolCalling: { runs: 1, calls: 12, ok: 9, failures: { bad_args: 1, timeout: 2 }, runsWithoutCallTotals: 0 },
        },
        {
          modelId: B,
          // Its slice in the run of several models, and its rollup run (turns − errors valid).
          rac: { runs: 2, turns: 6, valid: 5, compile: 1, runtime: 0, modelErrors: 0, missing: 0, byType: { transpile_syntax: 1 }, approximateRuns: 1 },
          toolCalling: { runs: 0, calls: 0, ok: 0, failures: {}, runsWithoutCallTotals: 1 },
        },
      ],
      // The rollup of a run of several models names no model to count for.
      unattributableRuns: 1,
    });
  });

  it('rates provider faults over the slices of the ids a model is recorded under', async () => {
    const rates = providerFaultRates(store());
    const rateOf = await rates([A, A, 'acme/a-alias']);
    // Together: (stall 1 + cache misses 2 + model_timeout 1 + model_parse 1) / (10 + 3) calls.
    expect(rateOf('together')).toBeCloseTo(5 / 13, 12);
    expect(rateOf('Fireworks')).toBeNull();
    expect((await rates([B]))('fireworks')).toBe(0);
    expect((await rates([]))('together')).toBeNull();
  });
});

describe('the statistics thread over PostgreSQL', () => {
  let url = '';
  let store: BackendStore;
  beforeAll(async () => {
    url = await testDatabase();
    const pool = postgresPool({ connectionString: url });
    await migratePostgres(pool);
    store = postgresStore<StoreSchema>(pool);
    await seed(store);
  });
  afterAll(() => store.db.destroy());

  it('reads the statistics from its own pool, as the store answers them', async () => {
    const reader = statsReader({ engine: 'postgres', url });
    try {
      expect(await reader.read('providers')).toEqual(await providerStats(store).read());
      expect(await reader.read('model-accuracy')).toEqual(await modelAccuracy(store)());
      expect(await reader.read('cabinet')).toEqual(await cabinetStats(store)(Date.now()));
    } finally {
      await reader.close();
    }
  });
});
