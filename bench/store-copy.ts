import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { startManagedPostgres } from '../src/db/managed-postgres.js';
import { sqliteStore } from '../src/db/dialect.js';
import { migratePostgres } from '../src/db/migrate-postgres.js';
import { openDatabase } from '../src/db/open-database.js';
import type { StoreSchema } from '../src/db/store-schema.js';
import { copyStore } from '../src/db/store-copy/copy-store.js';
import { storeLocation } from '../src/db/store-copy/store-location.js';
import { decodeRunRecord } from '../src/runs/decode-run-record.js';
import { runRows } from '../src/runs/run-rows.js';
import { machineLine } from './lib/machine.js';
import { printTable } from './lib/stats.js';
import { syntheticRunRecord } from './lib/synthetic-run.js';

const RUNS = 100_000;
const BATCH = 1000;

/**
 * `eval-backend store copy` of a store of 100,000 runs, SQLite -> PostgreSQL and back, with
 * its verification (every table read back and checksummed), against two raw baselines in
 * the same run: the same runs rows moved SQLite -> PostgreSQL by the plainest client loop
 * (one SELECT iterated, one unnest INSERT per 1,000 rows, no checks), and PostgreSQL's own
 * `INSERT … SELECT` of them inside the server (no client at all). Prints rows/s for each.
 */
export default async function benchStoreCopy(): Promise<void> {
  console.log(machineLine());
  const dir = mkdtempSync(join(tmpdir(), 'evb-bench-copy-'));
  // Its own folder under tmpdir(): the server's user must reach it, and the socket path must stay short.
  const pgDir = mkdtempSync(join(tmpdir(), 'evb-bench-pg-'));
  const server = await startManagedPostgres({ dir: pgDir });
  try {
    const sqliteFile = join(dir, 'source.sqlite');
    const seedStart = Date.now();
    const db = openDatabase(sqliteFile);
    const rows = runRows(sqliteStore<StoreSchema>(db));
    for (let i = 0; i < RUNS; i++) {
      const raw = syntheticRunRecord(i, { testCaseSlug: `case-${i % 40}`, testCaseVersion: 'v1.0.0', harnessSlug: 'codex', modelId: `vendor/model-${i % 20}` }, { cost: (i % 97) / 10 });
      await rows.store({ id: raw.id, jobId: null, record: JSON.stringify(raw), recordFormat: 1, decodeError: null, events: '[]', lifted: decodeRunRecord(raw).lifted });
    }
    db.close();
    console.log(`seeded ${RUNS} runs in ${Date.now() - seedStart} ms`);

    const timed = async (work: () => Promise<unknown>) => {
      const start = performance.now();
      await work();
      return (performance.now() - start) / 1000;
    };
    const toPostgres = await server.createDatabase('copy_there');
    let copiedRows = 0;
    const there = await timed(async () => {
      const reports = await copyStore(storeLocation(sqliteFile, dir), storeLocation(toPostgres, dir));
      if (reports.some((r) => !r.ok)) throw new Error('the copy did not verify');
      copiedRows = reports.reduce((n, r) => n + r.targetRows, 0);
    });
    const back = await timed(async () => {
      const reports = await copyStore(storeLocation(toPostgres, dir), storeLocation(join(dir, 'back.sqlite'), dir));
      if (reports.some((r) => !r.ok)) throw new Error('the copy back did not verify');
    });

    // Baseline 1: the runs rows alone, one plain client loop, nothing checked.
    const rawUrl = await server.createDatabase('copy_raw');
    const pool = new pg.Pool({ connectionString: rawUrl, max: 1 });
    await migratePostgres(pool);
    const source = new BetterSqlite3(sqliteFile, { readonly: true });
    source.defaultSafeIntegers(true);
    const columns = source.prepare<[], { name: string; type: string }>("SELECT name, type FROM pragma_table_info('runs') ORDER BY cid").all();
    const { rows: pgTypes } = await pool.query<{ name: string; type: string }>("SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = 'runs'");
    const typeOf = new Map(pgTypes.map((c) => [c.name, c.type]));
    const insert = `INSERT INTO runs (${columns.map((c) => `"${c.name}"`).join(', ')}) SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${typeOf.get(c.name)}[]`).join(', ')})`;
    const plain = await timed(async () => {
      await pool.query('BEGIN');
      let batch: unknown[][] = [];
      const flush = async () => {
        await pool.query(insert, columns.map((_, i) => batch.map((row) => row[i])));
        batch = [];
      };
      for (const row of source.prepare('SELECT * FROM runs').raw(true).iterate() as Iterable<unknown[]>) {
        batch.push(row);
        if (batch.length === BATCH) await flush();
      }
      if (batch.length > 0) await flush();
      await pool.query('COMMIT');
    });
    source.close();
    // Baseline 2: the server copying the same rows table to table.
    await pool.query('CREATE TABLE runs_again (LIKE runs INCLUDING ALL)');
    const inServer = await timed(() => pool.query('INSERT INTO runs_again SELECT * FROM runs'));
    await pool.end();

    const rate = (n: number, seconds: number) => Math.round(n / seconds).toLocaleString('en-US');
    printTable(`store copy of ${RUNS.toLocaleString('en-US')} runs (${copiedRows.toLocaleString('en-US')} rows in all tables)`, [
      { what: 'store copy SQLite -> PostgreSQL (copy + verify)', seconds: there.toFixed(2), 'rows/s': rate(copiedRows, there), 'x plain loop': (there / plain).toFixed(2) },
      { what: 'store copy PostgreSQL -> SQLite (copy + verify)', seconds: back.toFixed(2), 'rows/s': rate(copiedRows, back), 'x plain loop': (back / plain).toFixed(2) },
      { what: 'baseline: plain client loop, runs only, no checks', seconds: plain.toFixed(2), 'rows/s': rate(RUNS, plain), 'x plain loop': '1.00' },
      { what: 'baseline: INSERT … SELECT inside PostgreSQL', seconds: inServer.toFixed(2), 'rows/s': rate(RUNS, inServer), 'x plain loop': (inServer / plain).toFixed(2) },
    ]);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  }
}
