/**
 * Where each of the original's tables lands here: the table this build writes it into, or
 * why not. Every source table is in the ledger; a table not listed at all is counted as one
 * this importer does not know and named in the report.
 */
export const NO_HOME: Record<string, string> = {
  tournament: 'no home here: tournaments',
  comparison: 'no home here: comparisons',
  gg_agent: 'no home here: gg agents',
  gg_saved_query: 'no home here: gg saved queries',
  gg_dashboard: 'no home here: gg dashboards',
  case_reference_build: 'no home here: reference builds (rendered again at ingest)',
  case_reference_sheet: 'no home here: reference sheets (rendered again at ingest)',
  snapshot_state: 'no home here: the original\'s snapshot bookkeeping',
  backfill_state: 'no home here: the original\'s backfill bookkeeping',
  coverage_plan_cell_retry: 'no home here: retry bookkeeping of plan fills',
  ladder_dispatch: 'no home here: the dispatch itself (its outcomes are verdicts)',
  ladder_dispatch_climber: 'no home here: the dispatch\'s climbers (read for their keys)',
};

/** Tables this build imports, with their home here. */
export const IMPORTED: Record<string, string> = {
  run: 'runs',
  run_link: 'runs (links)',
  review: 'run_reviews',
  review_revision: 'run_reviews (revisions)',
  job: 'jobs',
  publish_job: 'publish_jobs',
  model: 'models',
  model_alias: 'models (aliases)',
  user: 'accounts (auth service)',
  token: 'tokens (auth service)',
  model_price: 'model_price_observations',
  harness_config: 'harness_config',
  gg_config: 'gg_configs',
  coverage_group: 'coverage_groups',
  coverage_plan: 'coverage_plans (with its schedule)',
  coverage_settings: 'coverage_settings',
  review_plan: 'coverage_plans ("Review plan")',
  ladder: 'ladders (with its schedule)',
  ladder_rung: 'ladder_rungs',
  ladder_climber: 'ladder_climbers (steering)',
  ladder_outcome: 'ladder_verdicts',
  ladder_dispatch_outcome: 'ladder_verdicts (the dispatch era)',
};

/** Tables that have a home here that this build does not write yet: counted, named, never silently dropped. */
export const NOT_YET: Record<string, string> = {
  model_probe: 'model_probes',
  model_probe_item: 'model_probe_items',
};
