import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { storeReadiness, type StoreReadiness } from '../../catalog/store-readiness.js';
import type { ServiceConfig } from '../../config.js';
import type { Database } from '../../db/open-database.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: ServiceConfig;
    db: Database;
    readiness: StoreReadiness;
  }
}

export interface StoreOptions {
  config: ServiceConfig;
  db: Database;
}

/** Decorates the configuration, the SQLite store and its readiness; the caller owns the database handle. */
async function store(app: FastifyInstance, { config, db }: StoreOptions) {
  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('readiness', storeReadiness(db));
}

export default fp(store, { name: 'store', fastify: '5.x' });
