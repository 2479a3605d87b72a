/**
 * The original system's migrations (TheClockwyrks/TheTestCabinet, `crates/migration/src`),
 * by the full name SeaORM records in `seaql_migrations.version`. Ordinals repeat (24, 25, 26,
 * 32, 45), so only full names identify one. A name not listed here was written by a build
 * newer than this importer knows, and such a store is refused.
 */
export const KNOWN_MIGRATIONS = [
  'm20260619_000001_create_initial_schema',
  'm20260621_000002_create_tournament',
  'm20260623_000003_create_job',
  'm20260628_000004_create_publish_job',
  'm20260707_000005_add_job_test_case_version',
  'm20260709_000006_create_model_catalog',
  'm20260709_000007_add_run_sort_columns',
  'm20260709_000008_add_job_attempt',
  'm20260709_000009_create_case_reference_build',
  'm20260711_000010_create_review_plan',
  'm20260712_000011_create_harness_config',
  'm20260712_000012_add_model_alias_harness_family',
  'm20260715_000013_create_coverage_group',
  'm20260715_000014_create_coverage_plan',
  'm20260715_000015_add_review_plan_migrated',
  'm20260719_000016_create_review_revision',
  'm20260721_000017_create_case_reference_sheet',
  'm20260723_000018_add_job_gg_config',
  'm20260724_000019_create_gg_config',
  'm20260724_000020_add_model_price_input_modalities',
  'm20260727_000021_create_comparison',
  'm20260731_000022_add_run_gg_preset',
  'm20260731_000023_add_job_test_type',
  'm20260801_000024_add_run_updated_at',
  'm20260801_000025_add_run_code_analyzer_version',
  'm20260801_000026_create_gg_saved_views',
  'm20260808_000024_publish_job_unique_queued_run',
  'm20260815_000025_add_job_queue_seq',
  'm20260815_000026_add_job_attribution',
  'm20260815_000027_add_coverage_plan_scheduling',
  'm20260815_000028_create_coverage_settings',
  'm20260815_000029_create_ladder',
  'm20260818_000030_create_gg_agent',
  'm20260818_000031_add_gg_config_agent_sources',
  'm20260820_000032_add_case_reference_build_engine',
  'm20260820_000032_drop_gg_agent_model_slots',
  'm20260822_000033_add_run_engine_slug',
  'm20260823_000034_create_model_probe',
  'm20260824_000035_probe_forced_submission',
  'm20260824_000036_probe_docview_scenarios',
  'm20260824_000037_add_validator_ratings',
  'm20260827_000038_add_review_aesthetic',
  'm20260830_000039_add_run_record_readability',
  'm20260901_000040_add_gg_cell_identity',
  'm20260901_000041_add_gg_config_id',
  'm20260901_000042_create_backfill_state',
  'm20260901_000043_add_engine_pins',
  'm20260906_000044_add_job_started_at',
  // One change under two names: an earlier build recorded the first, the final registration lists the second.
  'm20260922_000045_add_model_price_provider_slug',
  'm20260922_000045_add_provider_pin',
  'm20260923_000046_add_model_list_price',
  'm20260923_000047_add_model_provider_policy',
  'm20260928_000048_widen_model_list_price',
  'm20260929_000049_add_model_quantization_filter',
  'm20261002_000050_add_run_validator_rating',
  'm20261002_000051_add_ladder_top_up_pending',
  'm20261002_000052_add_job_retried_by',
  'm20261002_000053_add_ladder_top_up_requested',
  'm20261002_000054_ladder_plain_flow',
  'm20261002_000055_ladder_dispatch',
  'm20261009_000056_add_retry_count',
  'm20261010_000057_drop_model_price_rates',
] as const;

export type KnownMigration = (typeof KNOWN_MIGRATIONS)[number];

/** The ordinal a name carries (`m20260815_000029_create_ladder` -> 29). */
export const ordinalOf = (name: string): number => Number(/^m\d{8}_(\d{6})_/.exec(name)?.[1] ?? Number.NaN);

/**
 * The store generations the importer tells apart, by the newest ordinal applied: each brings
 * a change in how rows map (buffers and outcomes, engine columns, list prices, the plain
 * ladder flow, the dispatch era).
 */
export type Generation = 'G1' | 'G2' | 'G3' | 'G4' | 'G5' | 'G6';

export function generationOf(newestOrdinal: number): Generation {
  if (newestOrdinal <= 17) return 'G1';
  if (newestOrdinal <= 29) return 'G2';
  if (newestOrdinal <= 45) return 'G3';
  if (newestOrdinal <= 53) return 'G4';
  if (newestOrdinal === 54) return 'G5';
  return 'G6';
}

/**
 * What an applied migration leaves behind that detection can see: a table it creates or a
 * column it adds (and no later migration removes). SQLite runs the original's migrations
 * outside a transaction, so a name without its marker, or a marker without its name, is a
 * store caught mid-migration.
 */
export const MIGRATION_MARKERS: Partial<Record<KnownMigration, { table: string; column?: string }>> = {
  m20260619_000001_create_initial_schema: { table: 'run', column: 'record_json' },
  m20260623_000003_create_job: { table: 'job' },
  m20260628_000004_create_publish_job: { table: 'publish_job' },
  m20260709_000006_create_model_catalog: { table: 'model' },
  m20260709_000007_add_run_sort_columns: { table: 'run', column: 'review_count' },
  m20260719_000016_create_review_revision: { table: 'review_revision' },
  m20260724_000019_create_gg_config: { table: 'gg_config' },
  m20260815_000025_add_job_queue_seq: { table: 'job', column: 'queue_seq' },
  m20260815_000026_add_job_attribution: { table: 'job', column: 'user_id' },
  m20260815_000029_create_ladder: { table: 'ladder_rung' },
  m20260822_000033_add_run_engine_slug: { table: 'run', column: 'engine_slug' },
  m20260830_000039_add_run_record_readability: { table: 'run', column: 'record_readable' },
  m20260901_000041_add_gg_config_id: { table: 'run', column: 'gg_config_id' },
  m20260923_000046_add_model_list_price: { table: 'model', column: 'list_price_source' },
  m20261002_000050_add_run_validator_rating: { table: 'run', column: 'validator_rating' },
  m20261002_000052_add_job_retried_by: { table: 'job', column: 'retried_by' },
  m20261002_000055_ladder_dispatch: { table: 'ladder_dispatch_outcome' },
  m20261009_000056_add_retry_count: { table: 'coverage_plan', column: 'retry_count' },
};
