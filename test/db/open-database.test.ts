import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKEND_MIGRATIONS, openDatabase, WAL_SIZE_LIMIT } from '../../src/db/open-database.js';

const dir = mkdtempSync(join(tmpdir(), 'evb-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * openDatabase on one file from several threads at once, as the API and workers would from
 * their processes: each loads the compiled module (a worker thread does not load
 * TypeScript), then all are released together. Answers each one's error, or null.
 */
async function openTogether(file: string, count: number): Promise<Array<string | null>> {
  const module = new URL('../../dist/src/db/open-database.js', import.meta.url).href;
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const workers = Array.from({ length: count }, () => new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import(${JSON.stringify(module)}).then(({ openDatabase }) => {
       parentPort.postMessage('ready');
       Atomics.wait(workerData.gate, 0, 0);
       try { openDatabase(workerData.file, workerData.migrations).close(); parentPort.postMessage(null); }
       catch (error) { parentPort.postMessage(String(error.message)); }
     });`,
    { eval: true, workerData: { file, migrations: BACKEND_MIGRATIONS, gate } },
  ));
  const messages = workers.map((worker) => {
    const seen: Array<string | null> = [];
    let wake: () => void = () => {};
    worker.on('message', (message: string | null) => (seen.push(message), wake()));
    worker.on('error', (error) => (seen.push(error.message), wake()));
    return async (index: number) => {
      while (seen.length <= index) await new Promise<void>((done) => (wake = done));
      return seen[index]!;
    };
  });
  await Promise.all(messages.map((next) => next(0)));
  Atomics.store(gate, 0, 1);
  Atomics.notify(gate, 0);
  return Promise.all(messages.map((next) => next(1)));
}

describe('migrations', () => {
  it('run once when several processes open a new database at the same moment', async () => {
    const file = join(dir, 'shared.sqlite');
    expect(await openTogether(file, 6)).toEqual(Array(6).fill(null));
    const db = openDatabase(file);
    const names = db.prepare('SELECT name FROM schema_migrations').pluck().all() as string[];
    db.close();
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('0001_store_meta.sql');
  });

  it('refuse two migration files with one number, which would skip the second', () => {
    const migrations = mkdtempSync(join(dir, 'migrations-'));
    writeFileSync(join(migrations, '0001_first.sql'), 'CREATE TABLE a (x INTEGER);');
    writeFileSync(join(migrations, '0001_second.sql'), 'CREATE TABLE b (x INTEGER);');
    expect(() => openDatabase(join(dir, 'clash.sqlite'), `${migrations}/`)).toThrow(/share the number 0001 \(0001_first\.sql, 0001_second\.sql\)/);
  });

  it('refuse a database a newer build has migrated, naming the migration', () => {
    const file = join(dir, 'newer.sqlite');
    const db = openDatabase(file);
    db.prepare("INSERT INTO schema_migrations (id, name, applied_at) VALUES (9001, '9001_from_the_future.sql', 'x')").run();
    db.close();
    expect(() => openDatabase(file)).toThrow(/migrated by a newer build \(9001_from_the_future\.sql\)/);
  });

  it('serve a database a newer build has migrated only by expand steps, as a fleet mid-upgrade has it', () => {
    const file = join(dir, 'expanded.sqlite');
    const db = openDatabase(file);
    db.exec('CREATE TABLE added_by_newer (x INTEGER)');
    db.prepare("INSERT INTO schema_migrations (id, name, applied_at, expand) VALUES (9001, '9001_adds_a_table.sql', 'x', 1)").run();
    db.close();
    const reopened = openDatabase(file);
    expect(reopened.prepare('SELECT count(*) FROM added_by_newer').pluck().get()).toBe(0);
    reopened.prepare("INSERT INTO schema_migrations (id, name, applied_at, expand) VALUES (9002, '9002_drops_a_table.sql', 'x', 0)").run();
    reopened.close();
    expect(() => openDatabase(file)).toThrow(/migrated by a newer build \(9002_drops_a_table\.sql\)/);
  });

  it('record whether each migration is an expand step', () => {
    const migrations = mkdtempSync(join(dir, 'migrations-'));
    writeFileSync(join(migrations, '0001_first.sql'), '-- upgrade: expand\nCREATE TABLE a (x INTEGER);');
    writeFileSync(join(migrations, '0002_second.sql'), '-- upgrade: contract\nDROP TABLE a;');
    const db = openDatabase(join(dir, 'marks.sqlite'), `${migrations}/`);
    expect(db.prepare('SELECT name, expand FROM schema_migrations ORDER BY id').all()).toEqual([
      { name: '0001_first.sql', expand: 1 },
      { name: '0002_second.sql', expand: 0 },
    ]);
    db.close();
  });
});

describe('the write-ahead log', () => {
  it('is cut back to its size limit when it starts over after a burst larger than that', () => {
    const file = join(dir, 'burst.sqlite');
    const db = openDatabase(file);
    const wal = () => statSync(`${file}-wal`).size;
    db.exec('CREATE TABLE burst (body BLOB)');
    const insert = db.prepare('INSERT INTO burst (body) VALUES (?)');
    const body = Buffer.alloc(1024 * 1024, 1);
    // One transaction, as a large enqueue is: no checkpoint can start the log over inside it.
    db.transaction(() => {
      for (let i = 0; i < 80; i += 1) insert.run(body);
    })();
    expect(wal()).toBeGreaterThan(WAL_SIZE_LIMIT);
    db.pragma('wal_checkpoint(PASSIVE)');
    // The next write starts the log over, and cuts the file back as it does.
    db.exec('DELETE FROM burst');
    expect(wal()).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    db.close();
  });
});
