/**
 * A SQLite store holding a NUL character in text (written before the API refused one) copied
 * to PostgreSQL, whose text cannot keep it (issue 39 item 6): the copy is refused before
 * anything is written, naming the table, the row's key and the column, not failed whole
 * with the driver's unnamed "invalid byte sequence".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open-database.js';
import { copyStore, StoreCopyRefused } from '../../src/db/store-copy/copy-store.js';
import { storeLocation } from '../../src/db/store-copy/store-location.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evb-store-copy-nul-'));
});
afterAll(async () => {
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
});

describe('store copy of a row PostgreSQL cannot keep', () => {
  it('names the table, key and column, and leaves the target empty', async () => {
    const file = join(dir, 'nul.sqlite');
    const db = openDatabase(file);
    db.prepare("INSERT INTO test_case_groups (slug, name, summary, cases, position) VALUES ('clean', 'Clean', NULL, '[]', 1), ('dirty', ?, NULL, '[]', 2)").run('Bad\u0000name');
    db.close();
    const url = await testDatabase();
    const copying = copyStore(storeLocation(file, dir), storeLocation(url, dir));
    await expect(copying).rejects.toThrow(StoreCopyRefused);
    await expect(copying).rejects.toThrow('test_case_groups row (slug="dirty") holds a NUL character (\\u0000) in column name');
    const pool = new pg.Pool({ connectionString: url });
    try {
      expect((await pool.query('SELECT count(*)::int AS n FROM test_case_groups')).rows[0].n).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
