import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ladderStore, type LadderStore } from '../../ladders/ladder-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    ladders: LadderStore;
  }
}

/** Ladders: declarations, steering, verdicts. */
async function ladders(app: FastifyInstance) {
  const { db, runJobs, catalog, runs } = app;
  app.decorate('ladders', ladderStore({
    db,
    catalog: runJobs.catalog,
    index: catalog.index,
    ggConfigs: runJobs.ggConfigs,
    groupCombos: () => [],
  }));
  // Runs graded before the gate's per-review ranks existed are regraded once; reads meanwhile see them unjudged.
  app.addHook('onReady', () => {
    runs.grades.regradeStale().catch((error: unknown) => app.log.warn({ err: error }, 'ladders: regrading runs for the gate failed'));
  });
}

export default fp(ladders, { name: 'ladders', fastify: '5.x', dependencies: ['store', 'catalog', 'runs', 'run-jobs'] });
