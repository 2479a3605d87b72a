import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { statsReader, type StatsReader } from '../../stats/stats-reader.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Whole-table aggregates (statistics, job counts), read on a thread of their own. */
    statsReader: StatsReader;
  }
}

async function statsReaderPlugin(app: FastifyInstance) {
  // The API serves from SQLite until it reads DATABASE_URL; a PostgreSQL store is passed as `{ engine: 'postgres', url }`.
  const reader = statsReader({ engine: 'sqlite', file: app.db.name }, { onError: (error) => app.log.error({ err: error }, 'the statistics thread failed') });
  app.decorate('statsReader', reader);
  app.addHook('onClose', () => reader.close());
}

export default fp(statsReaderPlugin, { name: 'stats-reader', fastify: '5.x', dependencies: ['store'] });
