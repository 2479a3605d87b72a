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
  const { databaseUrl } = app.config;
  const source = databaseUrl === null ? { engine: 'sqlite' as const, file: app.sqlite!.name } : { engine: 'postgres' as const, url: databaseUrl };
  const reader = statsReader(source, { onError: (error) => app.log.error({ err: error }, 'the statistics thread failed') });
  app.decorate('statsReader', reader);
  app.addHook('onClose', () => reader.close());
}

export default fp(statsReaderPlugin, { name: 'stats-reader', fastify: '5.x', dependencies: ['store'] });
