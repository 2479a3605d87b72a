import type { CatalogIndex } from '../catalog/catalog-index.js';
import type { CoverageContext } from '../coverage/coverage-context.js';
import type { LadderClimbersTable } from '../db/ladder-climbers-table.js';
import type { LadderVerdictsTable } from '../db/ladder-verdicts-table.js';
import type { LaddersTable } from '../db/ladders-table.js';
import type { GateEvidence } from './gate-evidence.js';

/**
 * Everything the ladder services work with; the ladders plugin builds one per app. Ladders
 * share coverage's machinery (groups, settings, cell counting, launchability, schedule
 * locks, the enqueue path) through `coverage`.
 */
export interface LadderContext {
  coverage: CoverageContext;
  ladders: LaddersTable;
  climbers: LadderClimbersTable;
  verdicts: LadderVerdictsTable;
  evidence: GateEvidence;
  index: CatalogIndex;
}

export { ladderOrigin } from '../db/ladders-table.js';
