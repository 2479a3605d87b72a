// Generated from the SQLite migrations by src/db/store-schema-source.ts; do not edit by hand.
// Rewrite with: UPDATE_STORE_SCHEMA=1 npm test -- test/db/store-schema.test.ts
import type { Generated } from 'kysely';

export interface CoverageGroupsTable {
  id: string;
  account_id: string;
  name: string;
  kind: string;
  combos: Generated<string>;
  cases: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface CoveragePlansTable {
  id: string;
  account_id: string;
  name: string;
  runs_per_cell: number;
  combo_group_ids: Generated<string>;
  case_group_ids: Generated<string>;
  combos: Generated<string>;
  cases: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface CoverageSchedulesTable {
  owner: string;
  account_id: string;
  outer_axis: string;
  paused: number;
  auto_top_up: number;
  buffer_kind: string | null;
  buffer_runs: number | null;
  updated_at: string;
}

export interface CoverageSettingsTable {
  account_id: string;
  buffer_kind: string;
  buffer_runs: number | null;
  updated_at: string;
}

export interface GgConfigsTable {
  id: string;
  account_id: string;
  name: string;
  capability_set: string;
  slot_models: string;
  created_at: string;
  updated_at: string;
}

export interface HarnessConfigTable {
  slug: string;
  max_parallelism: number | null;
  updated_at: string;
  revision: Generated<number>;
}

export interface JobsTable {
  seq: Generated<number>;
  id: string;
  account_id: string;
  origin: string | null;
  test_case_slug: string;
  test_case_version: string;
  variant: string;
  harness_slug: string;
  model_id: string;
  provider: string | null;
  engine: string | null;
  test_type: string;
  gg_config_id: string | null;
  gg_preset: string | null;
  request: string;
  state: string;
  token_hash: string | null;
  record_id: string | null;
  detail: string | null;
  enqueued_at: string;
  dispatched_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  gg_models: string | null;
}

export interface LadderClimbersTable {
  ladder_id: string;
  key: string;
  priority: Generated<number>;
  focused: Generated<number>;
  held: Generated<number>;
  updated_at: string;
}

export interface LadderRungsTable {
  id: string;
  ladder_id: string;
  position: number;
  slug: string;
  version: string;
  variant: string;
  engine: Generated<string>;
  runs: number | null;
}

export interface LadderVerdictsTable {
  ladder_id: string;
  climber_key: string;
  rung_id: string;
  decided_slug: string;
  decided_version: string;
  decided_engine: string;
  outcome: string;
  decided_at: string;
  override_outcome: string | null;
  override_at: string | null;
}

export interface LaddersTable {
  id: string;
  account_id: string;
  name: string;
  runs_per_cell: number;
  gate: string;
  combo_group_ids: Generated<string>;
  combos: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface ModelPriceObservationsTable {
  id: Generated<number>;
  model_slug: string;
  observed_at: string;
  input: number | null;
  cached_input: number | null;
  output: number | null;
  source: string;
}

export interface ModelProbeItemsTable {
  id: Generated<number>;
  probe_id: string;
  language: string;
  scenario: string;
  prompt: string;
  sample: number;
  provider: string | null;
  finish_reason: string | null;
  native_finish_reason: string | null;
  label: string | null;
  pass: number;
  program_text: string | null;
  response_text: string | null;
  reasoning_text: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost: number | null;
  duration_ms: number;
  error: string | null;
  created_at: string;
}

export interface ModelProbesTable {
  id: string;
  model_slug: string;
  openrouter_slug: string;
  provider: string | null;
  language: string | null;
  samples: number;
  max_tokens: number;
  status: string;
  error: string | null;
  verdict: string | null;
  pass_rate: number | null;
  spend: Generated<number>;
  call_count: number;
  item_count: Generated<number>;
  pass_count: Generated<number>;
  error_count: Generated<number>;
  requests: string;
  created_at: string;
  finished_at: string | null;
  runner: string | null;
}

export interface ModelsTable {
  slug: string;
  name: string | null;
  provider: string | null;
  description: string | null;
  aliases: Generated<string>;
  provider_pin: string | null;
  logo: string | null;
  list_input: number | null;
  list_cached_input: number | null;
  list_output: number | null;
  list_as_of: string | null;
  list_source: string | null;
  created_at: string;
  updated_at: string;
  openrouter_slug: string | null;
  provider_pin_by_hand: Generated<number>;
  observed_provider: string | null;
  native_quantization: string | null;
  quantization_filter: Generated<number>;
  max_input_price: number | null;
  max_output_price: number | null;
  banned_providers: Generated<string>;
  unknown_quantization_providers: Generated<string>;
  logo_svg: string | null;
  provider_logo_url: string | null;
}

export interface OriginalImportsTable {
  id: Generated<number>;
  fingerprint: string;
  finished_at: string;
  balanced: number;
  report: string;
}

export interface PublishJobsTable {
  id: string;
  run_id: string;
  state: string;
  detail: string | null;
  source_repo: string | null;
  playable_build: string | null;
  created_ms: number;
  updated_at: string;
}

export interface RunGgStatsTable {
  run_id: string;
  model_id: string;
  execution_mode: string | null;
  has_provider_data: number;
  turns: number | null;
  slice_turns: number | null;
  transpile: number | null;
  program_fault: number | null;
  sandbox_limit: number | null;
  model_api: number | null;
  missing_completion: number | null;
  errors_by_type: string | null;
  tool_calls: number | null;
  tool_failures: string | null;
  sole_model: string | null;
  errors_total: number | null;
}

export interface RunProviderSliceErrorsTable {
  run_id: string;
  provider: string | null;
  model_id: string | null;
  error_type: string;
  n: number;
}

export interface RunProviderSlicesTable {
  run_id: string;
  provider: string | null;
  model_id: string | null;
  calls: number | null;
  total_tokens: number | null;
  cost: number | null;
  rejected: number | null;
  turns: number | null;
  working: number | null;
  stalls: number | null;
  cache_misses: number | null;
  model_faults: number | null;
  first_of_pair: Generated<number>;
  first_of_provider: Generated<number>;
}

export interface RunReviewsTable {
  run_id: string;
  reviewer_id: string;
  reviewer: string;
  username: string;
  ratings: Generated<string>;
  aesthetic: string | null;
  writeup: string;
  checklist: Generated<string>;
  reviewed_at: string;
  edited_at: string | null;
  revisions: Generated<string>;
  rating_rank: number | null;
}

export interface RunsTable {
  id: string;
  job_id: string | null;
  record_format: number;
  decode_error: string | null;
  state: string;
  published: Generated<number>;
  published_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  test_case_slug: string;
  test_case_version: string;
  version_rank: Generated<number>;
  variant: string;
  harness: string;
  model_id: string;
  engine: Generated<string>;
  test_type: string | null;
  gg_config_id: string | null;
  gg_config_name: string | null;
  run_time_seconds: number | null;
  tokens_total: number | null;
  cost: number | null;
  link_source_repo: string | null;
  link_playable_build: string | null;
  review_count: Generated<number>;
  aesthetic: string | null;
  aesthetic_rank: number | null;
  rating_rank: number | null;
  validator_rated: Generated<number>;
  grade_key: string | null;
  case_name: string | null;
  created_at: string;
  updated_at: string;
  summary: string | null;
  grade: string | null;
  validator_verdicts: Generated<string>;
  record: string;
  events: Generated<string>;
  validation_loaded: Generated<number>;
  validator_rating_rank: number | null;
  gg_models: string | null;
}

export interface SchemaDataStepsTable {
  name: string;
  applied_at: string;
}

export interface SchemaMigrationsTable {
  id: Generated<number>;
  name: string;
  applied_at: string;
  expand: Generated<number>;
}

export interface ShowcaseUploadsTable {
  job_id: string;
  run_id: string;
  files: Generated<number>;
  bytes: Generated<number>;
}

export interface StoreMetaTable {
  key: string;
  value: string;
}

export interface TestCaseGroupsTable {
  slug: string;
  name: string;
  summary: string | null;
  cases: string;
  position: number;
}

export interface TestCaseVersionsTable {
  slug: string;
  version: string;
  record_format: number;
  store_dir: string;
  fingerprint: string;
  content_hash: string;
  experimental: Generated<number>;
  ingested_at: string;
}

export interface StoreSchema {
  coverage_groups: CoverageGroupsTable;
  coverage_plans: CoveragePlansTable;
  coverage_schedules: CoverageSchedulesTable;
  coverage_settings: CoverageSettingsTable;
  gg_configs: GgConfigsTable;
  harness_config: HarnessConfigTable;
  jobs: JobsTable;
  ladder_climbers: LadderClimbersTable;
  ladder_rungs: LadderRungsTable;
  ladder_verdicts: LadderVerdictsTable;
  ladders: LaddersTable;
  model_price_observations: ModelPriceObservationsTable;
  model_probe_items: ModelProbeItemsTable;
  model_probes: ModelProbesTable;
  models: ModelsTable;
  original_imports: OriginalImportsTable;
  publish_jobs: PublishJobsTable;
  run_gg_stats: RunGgStatsTable;
  run_provider_slice_errors: RunProviderSliceErrorsTable;
  run_provider_slices: RunProviderSlicesTable;
  run_reviews: RunReviewsTable;
  runs: RunsTable;
  schema_data_steps: SchemaDataStepsTable;
  schema_migrations: SchemaMigrationsTable;
  showcase_uploads: ShowcaseUploadsTable;
  store_meta: StoreMetaTable;
  test_case_groups: TestCaseGroupsTable;
  test_case_versions: TestCaseVersionsTable;
}
