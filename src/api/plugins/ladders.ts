import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ladderClimbersTable } from '../../db/ladder-climbers-table.js';
import { ladderVerdictsTable } from '../../db/ladder-verdicts-table.js';
import { laddersTable } from '../../db/ladders-table.js';
import { gateEvidence } from '../../ladders/gate-evidence.js';
import type { LadderContext } from '../../ladders/ladder-context.js';
import { autoTopUpLadders } from '../../ladders/ladder-schedule-actions.js';

declare module 'fastify' {
  interface FastifyInstance {
    ladders: LadderContext;
  }
}

/** Ladders on coverage's machinery; registers ladders as an origin owner and their auto top-up after reviews. */
async function ladders(app: FastifyInstance) {
  const { store, coverage, catalog, runs, scheduleOwners } = app;
  const ctx: LadderContext = {
    coverage,
    ladders: laddersTable(store),
    climbers: ladderClimbersTable(store),
    verdicts: ladderVerdictsTable(store),
    evidence: gateEvidence((args) => app.statsReader.read('gate-evidence', args)),
    index: catalog.index,
  };
  scheduleOwners.origins.register('ladder', 'ladder', (accountId, id) => ctx.ladders.exists(accountId, id));
  scheduleOwners.reviewFollowUps.add((account, runId) => autoTopUpLadders(ctx, account, runId));
  // Runs graded before the gate's per-review ranks existed are regraded once; until then the gate sees them unjudged.
  app.addHook('onReady', async () => {
    void runs.grades.regradeStale().catch((error: unknown) => app.log.warn({ err: error }, 'ladders: regrading runs for the gate failed'));
  });
  app.decorate('ladders', ctx);
}

export default fp(ladders, { name: 'ladders', fastify: '5.x', dependencies: ['coverage', 'schedule-owners', 'catalog', 'runs'] });
