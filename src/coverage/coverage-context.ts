import type { CoverageGroupsTable } from '../db/coverage-groups-table.js';
import type { CoveragePlansTable } from '../db/coverage-plans-table.js';
import type { CoverageSchedulesTable } from '../db/coverage-schedules-table.js';
import type { CoverageSettingsTable } from '../db/coverage-settings-table.js';
import type { GgConfig } from '../db/gg-configs-table.js';
import type { JobsContext } from '../jobs/jobs-context.js';
import type { ScheduleLocks } from '../queue/schedule-lock.js';
import type { RunGrades } from '../runs/run-grades.js';
import type { CellCounter } from './cell-counts.js';
import type { CellLaunchability } from './cell-launchability.js';
import type { CoverageCell } from './coverage-cells.js';

/** Everything the coverage services work with (a schedule owner's context included); the coverage plugin builds one per app. */
export interface CoverageContext {
  jobs: JobsContext;
  groups: CoverageGroupsTable;
  plans: CoveragePlansTable;
  schedules: CoverageSchedulesTable;
  settings: CoverageSettingsTable;
  counter: CellCounter;
  locks: ScheduleLocks;
  grades: RunGrades;
  /** A fresh launchability reader; it caches, so one per request. */
  launchability(cells: Iterable<CoverageCell>): Promise<CellLaunchability>;
}

/** The account's gg configurations by row id, read in one query per request. */
export async function ggConfigLookup(jobs: JobsContext, accountId: string): Promise<(rowId: string) => GgConfig | null> {
  const configs = new Map((await jobs.ggConfigs.list(accountId)).map((config) => [config.id, config]));
  return (rowId) => configs.get(rowId) ?? null;
}
