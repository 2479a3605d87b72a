import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { storeReadiness, type StoreReadiness } from '../../catalog/store-readiness.js';
import type { ServiceConfig } from '../../config.js';
import { sqliteStore, type BackendStore } from '../../db/dialect.js';
import type { Database } from '../../db/open-database.js';
import type { StoreSchema } from '../../db/store-schema.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: ServiceConfig;
    /** The raw SQLite handle, for store modules not yet moved to `store`. */
    db: Database;
    /** The store layer (Kysely); on SQLite it runs over `db`'s connection. */
    store: BackendStore;
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
  // Not destroyed on close: destroying closes the handle, which the caller owns.
  const backendStore = sqliteStore<StoreSchema>(db);
  app.decorate('store', backendStore);
  app.decorate('readiness', storeReadiness(backendStore));
}

export default fp(store, { name: 'store', fastify: '5.x' });
