import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKEND_DATA_STEPS, migrateWithDataSteps, type DataStep } from '../../src/db/data-steps.js';
import { postgresPool, postgresStore, sqliteStore, type Store } from '../../src/db/dialect.js';
import { migratePostgres } from '../../src/db/migrate-postgres.js';
import { migrateSqlite, openDatabase } from '../../src/db/open-database.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';
import { TEST_ENGINE } from '../helpers/test-backend.js';

/**
 * A data step on the engine this half runs, between an expand migration that adds a column
 * and the contract migration that drops the column it was filled from: on a new database
 * all three run in that order, so the step still finds what it reads.
 */
const dir = mkdtempSync(join(tmpdir(), 'evb-data-steps-'));
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
  if (TEST_ENGINE === 'postgres') await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
});

function migrationsFolder(): string {
  const folder = mkdtempSync(join(dir, 'migrations-'));
  writeFileSync(join(folder, '0001_names.sql'), "CREATE TABLE names (id integer PRIMARY KEY, spelled text); INSERT INTO names VALUES (1, 'ada'), (2, 'grace');");
  writeFileSync(join(folder, '0002_shouted.sql'), '-- upgrade: expand\nALTER TABLE names ADD COLUMN shouted text;');
  writeFileSync(join(folder, '0003_drop_spelled.sql'), '-- upgrade: contract\nALTER TABLE names DROP COLUMN spelled;');
  return folder;
}

/** The step under test: fills `shouted` from `spelled`, and counts its runs in a table of its own. */
const shout: DataStep = {
  after: 2,
  name: '0002_fill_shouted',
  async run(db) {
    const rows = await sql<{ id: number; spelled: string }>`SELECT id, spelled FROM names`.execute(db);
    for (const row of rows.rows) await sql`UPDATE names SET shouted = ${row.spelled.toUpperCase()} WHERE id = ${row.id}`.execute(db);
    await sql`CREATE TABLE IF NOT EXISTS step_runs (n integer)`.execute(db);
    await sql`INSERT INTO step_runs VALUES (1)`.execute(db);
  },
};

interface Target {
  store: Store<unknown>;
  migrate: (upTo: number) => unknown;
}

async function newTarget(folder: string): Promise<Target> {
  if (TEST_ENGINE === 'sqlite') {
    const db = openDatabase(join(mkdtempSync(join(dir, 'db-')), 'store.sqlite'), folder, 0);
    closers.push(async () => { db.close(); });
    return { store: sqliteStore(db), migrate: (upTo) => migrateSqlite(db, folder, upTo) };
  }
  const pool = postgresPool({ connectionString: await testDatabase() });
  closers.push(() => pool.end());
  return { store: postgresStore(pool), migrate: (upTo) => migratePostgres(pool, folder, { upTo }) };
}

const rows = async (store: Store<unknown>, query: string) => (await sql.raw(query).execute(store.db)).rows;

describe(`data steps on ${TEST_ENGINE}`, () => {
  it('run between their migration and the next, once, recorded', async () => {
    const { store, migrate } = await newTarget(migrationsFolder());
    await migrateWithDataSteps(store, [shout], migrate);
    expect(await rows(store, 'SELECT id, shouted FROM names ORDER BY id')).toEqual([{ id: 1, shouted: 'ADA' }, { id: 2, shouted: 'GRACE' }]);
    await migrateWithDataSteps(store, [shout], migrate);
    expect(await rows(store, 'SELECT count(*) AS n FROM step_runs')).toEqual([{ n: 1 }]);
    expect(await rows(store, 'SELECT name FROM schema_data_steps')).toEqual([{ name: '0002_fill_shouted' }]);
  });

  it('leave neither changes nor a record when they fail, so the next boot runs them again', async () => {
    const { store, migrate } = await newTarget(migrationsFolder());
    const failing: DataStep = { ...shout, run: async (db, engine) => { await shout.run(db, engine); throw new Error('out of luck'); } };
    await expect(migrateWithDataSteps(store, [failing], migrate)).rejects.toThrow(/Data step 0002_fill_shouted failed: out of luck/);
    expect(await rows(store, 'SELECT count(*) AS n FROM schema_data_steps')).toEqual([{ n: 0 }]);
    // The contract migration after the step did not run either: the column the step reads is still there.
    expect(await rows(store, 'SELECT spelled, shouted FROM names ORDER BY id')).toEqual([{ spelled: 'ada', shouted: null }, { spelled: 'grace', shouted: null }]);
    await migrateWithDataSteps(store, [shout], migrate);
    expect(await rows(store, 'SELECT shouted FROM names ORDER BY id')).toEqual([{ shouted: 'ADA' }, { shouted: 'GRACE' }]);
  });

  // One SQLite file's writers are serialised by its lock; the PostgreSQL half tests the race.
  it.skipIf(TEST_ENGINE === 'sqlite')('run once when two processes migrate one database at the same moment', async () => {
    const folder = migrationsFolder();
    const url = await testDatabase();
    const pools = [postgresPool({ connectionString: url }), postgresPool({ connectionString: url })];
    closers.push(() => Promise.all(pools.map((pool) => pool.end())).then(() => {}));
    await Promise.all(pools.map((pool) => migrateWithDataSteps(postgresStore(pool), [shout], (upTo) => migratePostgres(pool, folder, { upTo }))));
    expect(await rows(postgresStore(pools[0]!), 'SELECT count(*) AS n FROM step_runs')).toEqual([{ n: 1 }]);
  });

  it('of the backend each follow a migration with an upgrade mark, under a unique name', () => {
    const names = BACKEND_DATA_STEPS.map((step) => step.name);
    expect(new Set(names).size).toBe(names.length);
    for (const step of BACKEND_DATA_STEPS) expect(step.after).toBeGreaterThan(92);
  });
});
