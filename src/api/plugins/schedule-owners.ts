import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { cellCounts, type CellCounter } from '../../coverage/cell-counts.js';
import { cellLaunchability, type CellLaunchability } from '../../coverage/cell-launchability.js';
import type { CoverageCell } from '../../coverage/coverage-cells.js';
import { OriginOwners } from '../../coverage/origin-owners.js';
import { ReviewFollowUps } from '../../coverage/review-follow-ups.js';
import { ScheduleLocks } from '../../queue/schedule-lock.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The machinery every schedule owner (coverage plans, ladders) shares: who may launch
     * under an origin, what runs after a review, the per-owner top-up lock, cell counting
     * and launchability.
     */
    scheduleOwners: {
      origins: OriginOwners;
      reviewFollowUps: ReviewFollowUps;
      locks: ScheduleLocks;
      counter: CellCounter;
      launchability(cells: Iterable<CoverageCell>): Promise<CellLaunchability>;
    };
  }
}

async function scheduleOwners(app: FastifyInstance) {
  const log = app.log.child({ area: 'schedule-owners' });
  app.decorate('scheduleOwners', {
    origins: new OriginOwners(),
    reviewFollowUps: new ReviewFollowUps((error, runId) => log.warn({ err: error, runId }, 'a follow-up of a review failed; the review stands')),
    locks: new ScheduleLocks(app.jobsRedis, app.config.redisPrefix),
    counter: cellCounts(app.store, (args) => app.statsReader.read('cell-counts', args)),
    launchability: (cells) => cellLaunchability({ catalog: app.runJobs.catalog, index: app.catalog.index, curatedSlugs: () => app.models.curatedSlugs() }, cells),
  });
}

export default fp(scheduleOwners, { name: 'schedule-owners', fastify: '5.x', dependencies: ['store', 'catalog', 'models', 'run-jobs'] });
