import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/db/dialect.js';
import { ggConfigsTable } from '../../src/db/gg-configs-table.js';
import { harnessConfigTable } from '../../src/db/harness-config-table.js';
import { jobsTable } from '../../src/db/jobs-table.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import { copyStore, StoreCopyRefused } from '../../src/db/store-copy/copy-store.js';
import type { TableColumn } from '../../src/db/store-copy/store-side.js';
import { storeLocation } from '../../src/db/store-copy/store-location.js';
import { TableChecksum } from '../../src/db/store-copy/table-checksum.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { decodeRunRecord } from '../../src/runs/decode-run-record.js';
import { runRows } from '../../src/runs/run-rows.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { jobRow } from '../helpers/temp-store.js';
import { ggRunRecord, slice } from '../stats/gg-run-records.js';

/** Past 2^53: a double would round it, so it only survives as an integer carried byte for byte. */
const LARGE_INTEGER = 9_007_199_254_740_993n;
/** Doubles whose last bit a text round trip through too few digits would lose. */
const DOUBLES = [0.1 + 0.2, 1 / 3, 5e-324, 1.7976931348623157e308, -123.456789012345678];
const UNICODE_RUN = 'run-ünïcödé-✓';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evb-store-copy-'));
});
afterAll(async () => {
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
});

const at = (file: string) => storeLocation(join(dir, file), dir);

async function storeRun(db: Database, record: Record<string, unknown>, jobId: string | null = null, text = JSON.stringify(record)) {
  const decoded = decodeRunRecord(record);
  await runRows(sqliteStore<StoreSchema>(db)).store({ id: record.id as string, jobId, record: text, recordFormat: 1, decodeError: null, events: '[]', lifted: decoded.lifted });
}

/** One row or more in every table, through the store modules where they write it, by SQL where no module is at hand. */
async function fillSqliteStore(file: string): Promise<void> {
  const db = openDatabase(join(dir, file));
  const store = sqliteStore<StoreSchema>(db);
  try {
    db.prepare(`INSERT INTO store_meta (key, value) VALUES ('catalog_version', 'c0ffee')`).run();
    const [seq] = await jobsTable(store).insert([jobRow('job-1', { request: '{"note":"ωmega — 日本語"}' }), jobRow('job-2')]);
    expect(seq).toBe(1);
    const run = runRecord({ id: UNICODE_RUN, model: 'vendor/模型', cost: DOUBLES[0]!, runTimeSeconds: DOUBLES[1]! });
    // The record as the harness sent it: its own spacing, key order and non-ASCII text survive the copy.
    const unicode = { note: 'emoji 🧪, a \u2028 line separator', ...run };
    await storeRun(db, unicode, null, JSON.stringify(unicode, null, 3).replace(/\n/g, '\r\n'));
    await storeRun(db, runRecord({ id: 'run-null-cost', cost: null }), 'job-1');
    await storeRun(db, ggRunRecord({ id: 'run-gg', model: 'vendor/gg', summary: { executionMode: 'tool_calling', providerStats: [slice('Together', 'vendor/gg', { errors: { rate_limit: 2 } }), slice(null, null)], toolCalls: 3 } }));
    // A value past 2^53 in a bigint column, and the doubles in double columns.
    db.prepare('UPDATE runs SET tokens_total = ? WHERE id = ?').run(LARGE_INTEGER, UNICODE_RUN);
    const sql = (text: string, ...values: unknown[]) => db.prepare(text).run(...values);
    sql("INSERT INTO run_reviews (run_id, reviewer_id, reviewer, username, writeup, reviewed_at) VALUES (?, 'u1', 'Ada', 'ada', 'fine ✓', '2026-01-01T00:00:00.000Z'), (?, 'u2', 'Bo', 'bo', '', '2026-01-02T00:00:00.000Z')", UNICODE_RUN, UNICODE_RUN);
    sql("INSERT INTO publish_jobs (id, run_id, state, created_ms, updated_at) VALUES ('pub-1', ?, 'succeeded', ?, '2026-01-01T00:00:00.000Z')", UNICODE_RUN, 1_767_225_600_123n);
    sql("INSERT INTO showcase_uploads (job_id, run_id, files, bytes) VALUES ('job-1', 'run-null-cost', 3, ?)", 5_000_000_000n);
    sql("INSERT INTO test_case_versions (slug, version, record_format, store_dir, fingerprint, content_hash, ingested_at) VALUES ('carom', 'v1.1.0', 1, 'carom/v1.1.0', 'f', 'h', '2026-01-01T00:00:00.000Z')");
    sql("INSERT INTO test_case_groups (slug, name, summary, cases, position) VALUES ('g', 'Group', NULL, '[\"carom\"]', 1)");
    await harnessConfigTable(store).set('codex', 4);
    await harnessConfigTable(store).set('claude', null);
    await ggConfigsTable(store).create('a', { name: 'Duo ✦', capabilitySet: { tools: true }, slotModels: { a: 'vendor/m' } });
    sql("INSERT INTO models (slug, name, list_input, list_output, list_source, created_at, updated_at) VALUES ('vendor/m', 'M', ?, NULL, 'hand', 't', 't')", DOUBLES[2]);
    sql("INSERT INTO model_price_observations (model_slug, observed_at, input, cached_input, output, source) VALUES ('vendor/m', 't', ?, NULL, ?, 'router')", DOUBLES[3], DOUBLES[4]);
    sql("INSERT INTO model_probes (id, model_slug, openrouter_slug, samples, max_tokens, status, pass_rate, call_count, requests, created_at) VALUES ('p1', 'vendor/m', 'v/m', 2, 100, 'complete', ?, 2, '[]', 't')", DOUBLES[1]);
    sql("INSERT INTO model_probe_items (probe_id, language, scenario, prompt, sample, pass, duration_ms, cost, created_at) VALUES ('p1', 'en', 's', 'Say ☃', 0, 1, 12, ?, 't'), ('p1', 'en', 's', 'again', 1, 0, 13, NULL, 't')", DOUBLES[0]);
    sql("INSERT INTO coverage_groups (id, account_id, name, kind, created_at, updated_at) VALUES ('cg', 'a', 'G', 'combo', 't', 't')");
    sql("INSERT INTO coverage_plans (id, account_id, name, runs_per_cell, created_at, updated_at) VALUES ('cp', 'a', 'P', 3, 't', 't')");
    sql("INSERT INTO coverage_settings (account_id, buffer_kind, buffer_runs, updated_at) VALUES ('a', 'bounded', 20, 't')");
    sql("INSERT INTO coverage_schedules (owner, account_id, outer_axis, paused, auto_top_up, buffer_kind, buffer_runs, updated_at) VALUES ('plan:cp', 'a', 'case', 0, 1, NULL, NULL, 't')");
    sql("INSERT INTO ladders (id, account_id, name, runs_per_cell, gate, created_at, updated_at) VALUES ('l', 'a', 'L', 2, '{}', 't', 't')");
    sql("INSERT INTO ladder_rungs (id, ladder_id, position, slug, version, variant, runs) VALUES ('r1', 'l', 0, 'carom', 'v1.1.0', 'base', NULL)");
    sql("INSERT INTO ladder_climbers (ladder_id, key, updated_at) VALUES ('l', 'codex|m', 't')");
    // A data step's record goes with the rows it changed, so the target does not run it again.
    sql("INSERT INTO schema_data_steps (name, applied_at) VALUES ('0100_fill_something', 't')");
    sql("INSERT INTO original_imports (fingerprint, finished_at, balanced, report) VALUES ('f1', 't', 1, '{\"tables\":[]}')");
    sql("INSERT INTO ladder_verdicts (ladder_id, climber_key, rung_id, decided_slug, decided_version, decided_engine, outcome, decided_at) VALUES ('l', 'codex|m', 'r1', 'carom', 'v1.1.0', '', 'walled', 't')");
    const empty = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").pluck().all()
      .filter((table) => db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() === 0);
    expect(empty, 'every table holds rows to copy').toEqual([]);
  } finally {
    db.close();
  }
}

/** Every table's rows of a SQLite store, ordered by all their columns, integers as bigint: what "the same store" means. */
function sqliteRows(file: string): Record<string, unknown[]> {
  const db = new BetterSqlite3(join(dir, file), { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all();
    return Object.fromEntries(tables.map((table) => {
      const positions = db.prepare(`SELECT cid + 1 FROM pragma_table_info(?)`).pluck().all(table).join(', ');
      return [table, db.prepare(`SELECT * FROM "${table}" ORDER BY ${positions}`).all()];
    }));
  } finally {
    db.close();
  }
}

describe('eval-backend store copy, SQLite -> PostgreSQL -> SQLite', () => {
  let url: string;
  beforeAll(async () => {
    await fillSqliteStore('source.sqlite');
    url = await testDatabase();
  });

  it('copies every table to PostgreSQL with equal counts and checksums, and back to SQLite row for row', async () => {
    // One row per batch: every table of two rows or more is read on by its key (composite keys,
    // SQLite rowid and PostgreSQL ctid for the tables without one), not only by its first page.
    const there = await copyStore(at('source.sqlite'), storeLocation(url, dir), { batchRows: 1 });
    expect(there.filter((r) => !r.ok)).toEqual([]);
    expect(there.find((r) => r.table === 'runs')).toMatchObject({ sourceRows: 3, targetRows: 3 });
    for (const table of ['run_provider_slices', 'run_reviews', 'jobs']) expect(there.find((r) => r.table === table)!.targetRows).toBeGreaterThan(1);

    const pool = new pg.Pool({ connectionString: url });
    try {
      const { rows } = await pool.query("SELECT record, tokens_total::text AS tokens, cost FROM runs WHERE id = $1", [UNICODE_RUN]);
      const source = new BetterSqlite3(join(dir, 'source.sqlite'), { readonly: true });
      expect(rows[0].record).toBe(source.prepare('SELECT record FROM runs WHERE id = ?').pluck().get(UNICODE_RUN));
      source.close();
      expect(rows[0].tokens).toBe(LARGE_INTEGER.toString());
      expect(rows[0].cost).toBe(DOUBLES[0]);
    } finally {
      await pool.end();
    }

    const back = await copyStore(storeLocation(url, dir), at('back.sqlite'), { batchRows: 1 });
    expect(back.filter((r) => !r.ok)).toEqual([]);
    expect(back.map((r) => r.sourceChecksum)).toEqual(there.map((r) => r.sourceChecksum));
    expect(sqliteRows('back.sqlite')).toEqual(sqliteRows('source.sqlite'));
  });

  it('reads a table without a key in address order past ten rows of a page, both ways', async () => {
    // A text ctid sorts (0,10) before (0,9): pages read by it skipped rows and read others twice.
    copyFileSync(join(dir, 'source.sqlite'), join(dir, 'wide.sqlite'));
    const wide = new BetterSqlite3(join(dir, 'wide.sqlite'));
    const insert = wide.prepare("INSERT INTO run_provider_slice_errors (run_id, provider, model_id, error_type, n) VALUES (?, 'p', 'm', ?, ?)");
    for (let i = 0; i < 40; i++) insert.run(UNICODE_RUN, `e${i}`, i);
    wide.close();
    const wideUrl = await testDatabase();
    const there = await copyStore(at('wide.sqlite'), storeLocation(wideUrl, dir), { batchRows: 7 });
    expect(there.find((r) => r.table === 'run_provider_slice_errors')).toMatchObject({ ok: true, targetRows: expect.any(Number) });
    expect(there.find((r) => r.table === 'run_provider_slice_errors')!.targetRows).toBeGreaterThanOrEqual(40);
    const back = await copyStore(storeLocation(wideUrl, dir), at('wide-back.sqlite'), { batchRows: 7 });
    expect(back.filter((r) => !r.ok)).toEqual([]);
  });

  it('resets every identity sequence: an insert after the copy gets a fresh value', async () => {
    const pool = new pg.Pool({ connectionString: url });
    try {
      const insert = async (text: string) => Number((await pool.query<{ id: string }>(text)).rows[0]!.id);
      expect(await insert(`INSERT INTO jobs (id, account_id, test_case_slug, test_case_version, variant, harness_slug, model_id, test_type, request, state, enqueued_at)
        VALUES ('job-3', 'a', 'carom', 'v1.1.0', 'base', 'codex', 'm', 'end-to-end', '{}', 'queued', 't') RETURNING seq AS id`)).toBe(3);
      expect(await insert("INSERT INTO model_price_observations (model_slug, observed_at, source) VALUES ('vendor/m', 't', 'router') RETURNING id")).toBe(2);
      expect(await insert("INSERT INTO model_probe_items (probe_id, language, scenario, prompt, sample, pass, duration_ms, created_at) VALUES ('p1', 'en', 's', 'x', 2, 1, 1, 't') RETURNING id")).toBe(3);
    } finally {
      await pool.end();
    }
  });

  it('refuses a target that holds rows, and empties it with replace', async () => {
    const refused = copyStore(at('source.sqlite'), at('back.sqlite'));
    await expect(refused).rejects.toThrow(StoreCopyRefused);
    await expect(refused).rejects.toThrow(/already holds rows: .*runs \(3\).*--replace/);
    await expect(copyStore(at('source.sqlite'), at('./source.sqlite'), { replace: true })).rejects.toThrow(/name the same store/);
    const replaced = await copyStore(at('source.sqlite'), at('back.sqlite'), { replace: true });
    expect(replaced.every((r) => r.ok)).toBe(true);
    expect(sqliteRows('back.sqlite')).toEqual(sqliteRows('source.sqlite'));
  });

  it('leaves the target as it was when the copy stops midway', async () => {
    const fresh = await testDatabase();
    const stop = new AbortController();
    const copying = copyStore(at('source.sqlite'), storeLocation(fresh, dir), { signal: stop.signal, onTable: (table) => table === 'runs' && stop.abort() });
    await expect(copying).rejects.toThrow(/abort/i);
    const pool = new pg.Pool({ connectionString: fresh });
    try {
      expect((await pool.query('SELECT count(*)::int AS n FROM runs')).rows[0].n).toBe(0);
      const source = new BetterSqlite3(join(dir, 'source.sqlite'), { readonly: true });
      const sourceId = source.prepare("SELECT value FROM store_meta WHERE key = 'store_id'").pluck().get();
      source.close();
      // The target keeps the id its own migration gave it, not the source's.
      expect((await pool.query("SELECT value FROM store_meta WHERE key = 'store_id'")).rows[0].value).not.toBe(sourceId);
    } finally {
      await pool.end();
    }
  });

  it('refuses a source another build migrated, and writes nothing', async () => {
    const other = new BetterSqlite3(join(dir, 'other.sqlite'));
    other.exec(`CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT;
      INSERT INTO schema_migrations VALUES (1, '0001_store_meta.sql', 't'), (9999, '9999_from_the_future.sql', 't');`);
    other.close();
    const fresh = await testDatabase();
    await expect(copyStore(at('other.sqlite'), storeLocation(fresh, dir))).rejects.toThrow(
      /migrated by another build; it lacks 0002_test_case_groups\.sql.*; this build does not know 9999_from_the_future\.sql/,
    );
    const pool = new pg.Pool({ connectionString: fresh });
    try {
      expect((await pool.query("SELECT to_regclass('runs') AS t")).rows[0].t).toBeNull();
    } finally {
      await pool.end();
    }
  });
});

describe('the per-table checksum', () => {
  const columns: TableColumn[] = [
    { name: 'n', type: 'INTEGER', family: 'integer', identity: false },
    { name: 'x', type: 'REAL', family: 'double', identity: false },
    { name: 't', type: 'TEXT', family: 'text', identity: false },
  ];
  const digest = (...rows: unknown[][]) => {
    const sum = new TableChecksum(columns);
    for (const row of rows) sum.add(row);
    return sum.digest;
  };

  it('reads an integer alike whichever way a driver hands it over, and a row order as no difference', () => {
    expect(digest([5n, 1.5, 'a'], [LARGE_INTEGER, null, 'b'])).toBe(digest([LARGE_INTEGER, null, 'b'], [5, 1.5, 'a']));
  });

  it('tells apart the last bit of a double, NULL from empty text, and a row copied twice', () => {
    const next = new Float64Array([0.1 + 0.2]);
    new BigInt64Array(next.buffer)[0]! += 1n;
    expect(digest([1n, 0.1 + 0.2, 'a'])).not.toBe(digest([1n, next[0]!, 'a']));
    expect(digest([1n, 1, null])).not.toBe(digest([1n, 1, '']));
    expect(digest([1n, 1, 'a'])).not.toBe(digest([1n, 1, 'a'], [1n, 1, 'a']));
  });
});
