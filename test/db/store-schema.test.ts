import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUTH_MIGRATIONS } from '../../src/auth/auth-store.js';
import { openDatabase } from '../../src/db/open-database.js';
import { storeSchemaSource } from '../../src/db/store-schema-source.js';

const FILE = fileURLToPath(new URL('../../src/db/store-schema.ts', import.meta.url));
const AUTH_FILE = fileURLToPath(new URL('../../src/auth/auth-schema.ts', import.meta.url));

describe('the Kysely table types', () => {
  it('are what the migrations create', () => {
    const db = openDatabase(':memory:');
    try {
      const source = storeSchemaSource(db, 'StoreSchema');
      if (process.env.UPDATE_STORE_SCHEMA === '1') writeFileSync(FILE, source);
      expect(readFileSync(FILE, 'utf8'), 'src/db/store-schema.ts is stale: run UPDATE_STORE_SCHEMA=1 npm test -- test/db/store-schema.test.ts').toBe(source);
    } finally {
      db.close();
    }
  });

  it('of the auth service are what its migrations create', () => {
    const db = openDatabase(':memory:', AUTH_MIGRATIONS);
    try {
      const source = storeSchemaSource(db, 'AuthSchema');
      if (process.env.UPDATE_STORE_SCHEMA === '1') writeFileSync(AUTH_FILE, source);
      expect(readFileSync(AUTH_FILE, 'utf8'), 'src/auth/auth-schema.ts is stale: run UPDATE_STORE_SCHEMA=1 npm test -- test/db/store-schema.test.ts').toBe(source);
    } finally {
      db.close();
    }
  });
});
