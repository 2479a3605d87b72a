import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresPool } from '../../src/db/dialect.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from '../../src/db/migrate-postgres.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';

/** The newest migration this build knows, as the refusal names it. */
const NEWEST = readdirSync(POSTGRES_MIGRATIONS).filter((name) => /^\d{4}_/.test(name)).sort().at(-1)!.slice(0, 4);

const dir = mkdtempSync(join(tmpdir(), 'evb-pg-migrate-'));
const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
});

async function freshPool(): Promise<pg.Pool> {
  const pool = postgresPool({ connectionString: await testDatabase() });
  pools.push(pool);
  return pool;
}

/**
 * migratePostgres on one database from several processes at once, as the API, workers and
 * the CLI would: each loads the compiled modules and says `ready`, then all are released by
 * one line on their stdin. Answers each one's error, or null.
 */
async function migrateTogether(url: string, count: number): Promise<Array<string | null>> {
  const dist = new URL('../../dist/src/db/', import.meta.url).href;
  const script = `
    const { postgresPool } = await import(${JSON.stringify(`${dist}dialect.js`)});
    const { migratePostgres } = await import(${JSON.stringify(`${dist}migrate-postgres.js`)});
    const pool = postgresPool({ connectionString: process.env.URL });
    await pool.query('SELECT 1');
    process.stdout.write('ready\\n');
    await new Promise((go) => process.stdin.once('data', go));
    try { await migratePostgres(pool); process.stdout.write('ok\\n'); }
    catch (error) { process.stdout.write('error ' + error.message + '\\n'); }
    finally { await pool.end(); process.stdin.destroy(); }`;
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, URL: url }, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    return { child, output: () => out, exited: once(child, 'exit') };
  });
  const ready = (c: (typeof children)[number]) => new Promise<void>((done) => {
    const check = () => (c.output().includes('ready\n') ? done() : c.child.stdout.once('data', check));
    check();
  });
  await Promise.all(children.map(ready));
  for (const { child } of children) child.stdin.write('go\n');
  await Promise.all(children.map((c) => c.exited));
  return children.map((c) => {
    const last = c.output().trim().split('\n').at(-1) ?? '';
    return last === 'ok' ? null : last;
  });
}

describe('the PostgreSQL migration runner', () => {
  it('applies each migration once when several processes migrate a new database at the same moment', async () => {
    const pool = await freshPool();
    const url = (pool.options as { connectionString: string }).connectionString;
    expect(await migrateTogether(url, 4)).toEqual([null, null, null, null]);
    const { rows } = await pool.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY id');
    expect(rows.map((row) => row.name)).toEqual(readdirSync(POSTGRES_MIGRATIONS).filter((name) => name.endsWith('.sql')).sort());
    // 0083 inserts the store id: applied twice, it would have failed on the key or left two.
    expect((await pool.query("SELECT count(*) AS n FROM store_meta WHERE key = 'store_id'")).rows).toEqual([{ n: 1 }]);
  });

  it('refuses a database a newer build has migrated, naming the migration', async () => {
    const pool = await freshPool();
    await migratePostgres(pool);
    await pool.query("INSERT INTO schema_migrations (id, name, applied_at) VALUES (9001, '9001_from_the_future.sql', 'x')");
    await expect(migratePostgres(pool)).rejects.toThrow(
      new RegExp(String.raw`^PostgreSQL database "test_\d+_\d+" was migrated by a newer build \(9001_from_the_future\.sql\); this build knows migrations up to ${NEWEST}\. Run the newer build`),
    );
  });

  it('serves a database a newer build has migrated only by expand steps, and refuses one with a contract step', async () => {
    const pool = await freshPool();
    await migratePostgres(pool);
    await pool.query("INSERT INTO schema_migrations (id, name, applied_at, expand) VALUES (9001, '9001_adds_a_table.sql', 'x', 1)");
    await migratePostgres(pool);
    await pool.query("INSERT INTO schema_migrations (id, name, applied_at, expand) VALUES (9002, '9002_drops_a_table.sql', 'x', 0)");
    await expect(migratePostgres(pool)).rejects.toThrow(/was migrated by a newer build \(9002_drops_a_table\.sql\)/);
  });

  it('lets queries of a busy table through while its migration waits for the lock, then applies it', async () => {
    const pool = await freshPool();
    const migrations = mkdtempSync(join(dir, 'migrations-'));
    writeFileSync(join(migrations, '0001_table.sql'), '-- upgrade: expand\nCREATE TABLE busy (x bigint); INSERT INTO busy VALUES (1);');
    await migratePostgres(pool, migrations);
    writeFileSync(join(migrations, '0002_column.sql'), '-- upgrade: expand\nALTER TABLE busy ADD COLUMN y bigint;');
    // A long transaction that read the table holds a lock the ALTER must wait for.
    const holder = await pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT * FROM busy');
    const migrated = migratePostgres(pool, migrations, { lockWaitMs: 200 });
    await new Promise((done) => setTimeout(done, 100));
    // A plain read queued behind the waiting ALTER: it must not wait for the holder too.
    const began = Date.now();
    const read = pool.query('SELECT count(*)::int AS n FROM busy');
    const holdMs = 4000;
    const released = new Promise((done) => setTimeout(done, holdMs)).then(() => holder.query('COMMIT')).finally(() => holder.release());
    expect((await read).rows).toEqual([{ n: 1 }]);
    expect(Date.now() - began).toBeLessThan(holdMs / 2);
    await released;
    await migrated;
    expect((await pool.query("SELECT name, expand FROM schema_migrations WHERE id = 2")).rows).toEqual([{ name: '0002_column.sql', expand: 1 }]);
    expect((await pool.query('SELECT y FROM busy')).rows).toEqual([{ y: null }]);
  });

  it('leaves nothing of a migration that fails midway, and records only those applied', async () => {
    const pool = await freshPool();
    const migrations = mkdtempSync(join(dir, 'migrations-'));
    writeFileSync(join(migrations, '0001_first.sql'), 'CREATE TABLE first (x bigint);');
    writeFileSync(join(migrations, '0002_broken.sql'), 'CREATE TABLE second (x bigint); INSERT INTO second VALUES (1); SELECT no_such_function();');
    await expect(migratePostgres(pool, migrations)).rejects.toThrow(/0002_broken\.sql failed: function no_such_function\(\) does not exist/);
    expect((await pool.query('SELECT id FROM schema_migrations')).rows).toEqual([{ id: 1 }]);
    expect((await pool.query("SELECT to_regclass('second') AS second")).rows).toEqual([{ second: null }]);
  });

  it('commits a migration and its record together', async () => {
    const pool = await freshPool();
    const migrations = mkdtempSync(join(dir, 'migrations-'));
    // The file itself succeeds; recording it then fails on the key it took. Its table must go with it.
    writeFileSync(join(migrations, '0001_records_itself.sql'), "CREATE TABLE first (x bigint); INSERT INTO schema_migrations VALUES (1, 'x', 'x');");
    await expect(migratePostgres(pool, migrations)).rejects.toThrow(/0001_records_itself\.sql failed: duplicate key/);
    expect((await pool.query("SELECT to_regclass('first') AS first, (SELECT count(*) FROM schema_migrations) AS n")).rows).toEqual([{ first: null, n: 0 }]);
  });
});
