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
    /** The raw SQLite handle, or null on PostgreSQL. */
    sqlite: Database | null;
    /** The store layer (Kysely): over `sqlite`'s connection, or over a PostgreSQL pool. */
    store: BackendStore;
    readiness: StoreReadiness;
  }
}

export interface StoreOptions {
  config: ServiceConfig;
  /** The SQLite handle (null on PostgreSQL). */
  db: Database | null;
  /** The store layer; default: Kysely over `db`. */
  store?: BackendStore;
}

/** Decorates the configuration, the store and its readiness; the caller owns the handle or pool. */
async function store(app: FastifyInstance, { config, db, store: given }: StoreOptions) {
  if (!given && !db) throw new Error('the store plugin needs a SQLite handle or a store');
  app.decorate('config', config);
  app.decorate('sqlite', db);
  // Not destroyed on close: destroying closes the handle or pool, which the caller owns.
  const backendStore = given ?? sqliteStore<StoreSchema>(db!);
  app.decorate('store', backendStore);
  app.decorate('readiness', storeReadiness(backendStore));
}

export default fp(store, { name: 'store', fastify: '5.x' });
