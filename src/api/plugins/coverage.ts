import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { CoverageContext } from '../../coverage/coverage-context.js';
import { autoTopUpAfterReview } from '../../coverage/plan-schedule-actions.js';
import { coverageGroupsTable } from '../../db/coverage-groups-table.js';
import { coveragePlansTable } from '../../db/coverage-plans-table.js';
import { coverageSchedulesTable } from '../../db/coverage-schedules-table.js';
import { coverageSettingsTable } from '../../db/coverage-settings-table.js';

declare module 'fastify' {
  interface FastifyInstance {
    coverage: CoverageContext;
  }
}

/** Coverage groups, plans and settings; registers plans as an origin owner and their auto top-up after reviews. */
async function coverage(app: FastifyInstance) {
  const shared = app.scheduleOwners;
  const ctx: CoverageContext = {
    jobs: app.runJobs,
    groups: coverageGroupsTable(app.store),
    plans: coveragePlansTable(app.store),
    schedules: coverageSchedulesTable(app.store),
    settings: coverageSettingsTable(app.store),
    counter: shared.counter,
    locks: shared.locks,
    grades: app.runs.grades,
    launchability: shared.launchability,
  };
  shared.origins.register('plan', 'coverage plan', (accountId, id) => ctx.plans.exists(accountId, id));
  shared.reviewFollowUps.add((account, runId) => autoTopUpAfterReview(ctx, account, runId));
  app.decorate('coverage', ctx);
}

export default fp(coverage, { name: 'coverage', fastify: '5.x', dependencies: ['schedule-owners', 'runs', 'run-jobs'] });
