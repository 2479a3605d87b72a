import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/db/open-store.js';
import { decodeRunRecord } from '../../src/runs/decode-run-record.js';
import { runRows } from '../../src/runs/run-rows.js';
import { dropTestDatabase, stopTestPostgres, testDatabase } from '../helpers/postgres.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { TEST_ENGINE } from '../helpers/test-backend.js';
import { buildOriginalAuth } from './fixtures/original-auth.js';
import { buildOriginalStore, RUNS } from './fixtures/original-store.js';
import { importCli, importTarget, tableOf } from './import-cli.js';

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await stopTestPostgres();
});

/** Rows in our store's runs and original_imports: what a refused import must leave at zero. */
async function written(env: Record<string, string>): Promise<{ runs: number; imports: number }> {
  const opened = await openStore(loadConfig(env));
  try {
    const count = async (table: 'runs' | 'original_imports') =>
      Number((await opened.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n);
    return { runs: await count('runs'), imports: await count('original_imports') };
  } finally {
    await opened.close();
  }
}

describe('import-original refuses before writing (exit 2), naming what it found', () => {
  let target: Awaited<ReturnType<typeof importTarget>>;
  let source: string;
  beforeEach(async () => {
    target = await importTarget();
    source = join(target.dataDir, 'original.sqlite');
  });

  it('a store a newer build of the original migrated', async () => {
    await buildOriginalStore('sqlite', source, 57);
    new BetterSqlite3(source).prepare('INSERT INTO seaql_migrations (version, applied_at) VALUES (?, 1)').run('m20261101_000058_add_something_new');
    const result = await importCli(target.env, ['--from', source]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('newer build of the original');
    expect(result.stderr).toContain('m20261101_000058_add_something_new');
    expect(await written(target.env)).toEqual({ runs: 0, imports: 0 });
  });

  it('a database that is not the original\'s, and a file that is not a database', async () => {
    new BetterSqlite3(source).exec('CREATE TABLE runs (id TEXT PRIMARY KEY)');
    const ours = await importCli(target.env, ['--from', source]);
    expect(ours.code).toBe(2);
    expect(ours.stderr).toContain('is not a database of the original system: it has no seaql_migrations table (tables found: runs)');

    const garbage = join(target.dataDir, 'garbage.sqlite');
    writeFileSync(garbage, Buffer.alloc(8192, 7));
    const corrupt = await importCli(target.env, ['--from', garbage]);
    expect(corrupt.code).toBe(2);
    expect(corrupt.stderr).toMatch(/garbage\.sqlite cannot be read as a SQLite database: file is not a database/);
    expect(corrupt.stderr).not.toMatch(/\n\s+at /);

    const missing = await importCli(target.env, ['--from', join(target.dataDir, 'nope.sqlite')]);
    expect(missing.code).toBe(2);
    expect(await written(target.env)).toEqual({ runs: 0, imports: 0 });
  });

  it('a truncated store', async () => {
    await buildOriginalStore('sqlite', source, 57);
    const bytes = readFileSync(source);
    const truncated = join(target.dataDir, 'truncated.sqlite');
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const result = await importCli(target.env, ['--from', truncated]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/truncated\.sqlite/);
    expect(await written(target.env)).toEqual({ runs: 0, imports: 0 });
  });

  it('a store caught mid-migration (a column added, its migration not recorded)', async () => {
    await buildOriginalStore('sqlite', source, 57);
    new BetterSqlite3(source).prepare('DELETE FROM seaql_migrations WHERE version = ?').run('m20261009_000056_add_retry_count');
    const result = await importCli(target.env, ['--from', source]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mid-migration (coverage_plan.retry_count exists but m20261009_000056_add_retry_count is not recorded)');
    expect(await written(target.env)).toEqual({ runs: 0, imports: 0 });
  });

  it('two original usernames that differ only in case', async () => {
    await buildOriginalStore('sqlite', source, 57);
    const auth = join(target.dataDir, 'auth.sqlite.original');
    await buildOriginalAuth(auth, { caseTwin: true });
    const result = await importCli(target.env, ['--from', source, '--auth-from', auth]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('table user holds usernames that differ only in case');
    expect(result.stderr).toContain('"Ada" (user ck0ada-twin) and "ada" (user ck0ada00000000000000000001)');
    expect(await written(target.env)).toEqual({ runs: 0, imports: 0 });
  });

  it('a PostgreSQL source that cannot be reached', async () => {
    const result = await importCli(target.env, ['--from', 'postgres://importer:secret@127.0.0.1:9/original']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('postgres://importer:***@127.0.0.1:9/original cannot be read');
    expect(result.stderr).not.toContain('secret');
  });

  it('while our service runs on the target store, saying how to stop it', async () => {
    await buildOriginalStore('sqlite', source, 57);
    // A live supervisor's lock, as `npm start` writes it: its pid and command line.
    const supervisor = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(supervisor);
    mkdirSync(join(target.dataDir, 'run'), { recursive: true });
    writeFileSync(join(target.dataDir, 'run', 'supervisor.pid'), `${supervisor.pid}\nsleep 60\n`);
    const result = await importCli(target.env, ['--from', source]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`our service is running on this store`);
    expect(result.stderr).toContain(`kill -TERM ${supervisor.pid}`);
    supervisor.kill('SIGKILL');
    expect(await written(target.env)).toEqual({ runs: 0, imports: 0 });
  });

  it('a store that holds other data, unless --merge; then a different run under a source id is a conflict, never overwritten', async () => {
    await buildOriginalStore('sqlite', source, 57);
    const opened = await openStore(loadConfig(target.env));
    const theirs = runRecord({ id: RUNS.limit });
    await runRows(opened.store).store({ id: RUNS.limit, jobId: 'job-here', record: JSON.stringify(theirs), recordFormat: 1, decodeError: null, events: '[]', lifted: decodeRunRecord(theirs).lifted });
    await opened.close();

    const refused = await importCli(target.env, ['--from', source]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('already holds data (1 rows in runs)');
    expect(refused.stderr).toContain('--merge');

    const merged = await importCli(target.env, ['--from', source, '--merge', '--accept-unreadable']);
    expect(merged.code, merged.stderr).toBe(0);
    const runs = tableOf(merged.report!, 'run');
    expect(runs.refused).toEqual([{ reason: 'conflict: the store already holds a different run under this id (never overwritten)', count: 1, ids: [RUNS.limit] }]);
    expect(runs).toMatchObject({ read: 7, imported: 4, importedUnreadable: 2, balanced: true });
    const after = await openStore(loadConfig(target.env));
    const kept = await runRows(after.store).get(RUNS.limit);
    await after.close();
    expect(kept!.record).toBe(JSON.stringify(theirs));
  });
});

describe('rows this build does not import yet', () => {
  it('are counted and named, and the command exits 1 rather than claim the move is done', async () => {
    const target = await importTarget();
    const source = join(target.dataDir, 'original.sqlite');
    await buildOriginalStore('sqlite', source, 57);
    new BetterSqlite3(source).prepare("INSERT INTO model_probe (id, model_slug, status) VALUES ('probe-1', 'gpt-5', 'ok')").run();
    const result = await importCli(target.env, ['--from', source, '--accept-unreadable']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('1 model_probe row(s) have a home here but this build does not import them yet');
    expect(tableOf(result.report!, 'model_probe')).toMatchObject({ read: 1, balanced: true, skipped: [{ reason: 'has a home here (model_probes), but this build does not import it yet', count: 1, ids: [] }] });
    // Everything else is in.
    expect(tableOf(result.report!, 'run')).toMatchObject({ imported: 5, importedUnreadable: 2 });
  });
});

describe('a record holding a NUL byte', () => {
  it(TEST_ENGINE === 'postgres' ? 'is refused on PostgreSQL, named, and the rest imported' : 'is imported as it is on SQLite', async () => {
    const target = await importTarget();
    const source = join(target.dataDir, 'original.sqlite');
    await buildOriginalStore('sqlite', source, 57);
    // Raw in the record's text (JSON itself would spell it \u0000, which PostgreSQL text holds).
    new BetterSqlite3(source).prepare("UPDATE run SET record_json = record_json || char(0) WHERE id = ?").run(RUNS.completed);
    const result = await importCli(target.env, ['--from', source, '--accept-unreadable']);
    expect(result.code, result.stderr).toBe(0);
    const runs = tableOf(result.report!, 'run');
    if (TEST_ENGINE === 'postgres') {
      expect(runs.refused).toEqual([{ reason: 'holds a NUL byte, which PostgreSQL text cannot store', count: 1, ids: [RUNS.completed] }]);
      // Its review goes with it, named.
      expect(tableOf(result.report!, 'review').refused[0]).toMatchObject({ count: 1, ids: ['rv1'] });
      expect(result.stdout).toContain(`refused run: 1 (holds a NUL byte, which PostgreSQL text cannot store): ${RUNS.completed}`);
    } else {
      expect(runs.refused).toEqual([]);
      expect(runs.verbatimDigest!.source).toBe(runs.verbatimDigest!.target);
    }
    expect(runs.balanced).toBe(true);
  });
});

describe('a PostgreSQL source', () => {
  it('imports a G4 store read in one snapshot, every table balanced', async () => {
    const url = await testDatabase();
    try {
      await buildOriginalStore('postgres', url, 53);
      const target = await importTarget();
      const result = await importCli(target.env, ['--from', url, '--accept-unreadable']);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.report!.generation).toBe('G4');
      expect(tableOf(result.report!, 'run')).toMatchObject({ read: 7, imported: 5, importedUnreadable: 2, balanced: true });
      expect(tableOf(result.report!, 'review')).toMatchObject({ read: 2, imported: 2, balanced: true });
      // The same rows as from SQLite give the same digests.
      const sqliteTarget = await importTarget();
      const file = join(sqliteTarget.dataDir, 'original.sqlite');
      await buildOriginalStore('sqlite', file, 53);
      const fromSqlite = await importCli(sqliteTarget.env, ['--from', file, '--accept-unreadable', '--dry-run']);
      expect(tableOf(fromSqlite.report!, 'run').verbatimDigest!.source).toBe(tableOf(result.report!, 'run').verbatimDigest!.source);
    } finally {
      await dropTestDatabase(url);
    }
  });
});
