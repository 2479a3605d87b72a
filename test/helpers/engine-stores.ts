import { afterAll } from 'vitest';
import { postgresPool, postgresStore, sqliteStore, type BackendStore, type Engine } from '../../src/db/dialect.js';
import { openDatabase } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { stopTestPostgres, testDatabase } from './postgres.js';

/** Both engines, for `describe.each(ENGINES)`. */
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/**
 * Fresh, migrated stores for tests that check a store module on both engines: SQLite in
 * memory, PostgreSQL as a new database on the run's throwaway cluster. Everything opened is
 * closed after the file's tests.
 */
export function engineStores() {
  const opened: BackendStore[] = [];
  afterAll(async () => {
    for (const store of opened.splice(0)) await store.db.destroy();
    await stopTestPostgres();
  });
  return {
    async fresh(engine: Engine): Promise<BackendStore> {
      let store: BackendStore;
      if (engine === 'sqlite') {
        store = sqliteStore<StoreSchema>(openDatabase(':memory:'));
      } else {
        // A copy of the run's migrated template: no store pays for the migrations.
        store = postgresStore<StoreSchema>(postgresPool({ connectionString: await testDatabase({ migrated: true }) }));
      }
      opened.push(store);
      return store;
    },
  };
}
