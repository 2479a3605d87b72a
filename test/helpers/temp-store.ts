import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { NewJobRow } from '../../src/db/jobs-table.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';

/** A fresh, migrated store file for each test of the calling file, closed and removed after it. */
export function useTempStore(prefix: string): { readonly db: Database; readonly dir: string } {
  let dir = '';
  let db: Database | null = null;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    db = openDatabase(join(dir, 'backend.sqlite'));
  });
  afterEach(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get db() {
      if (!db) throw new Error('the temporary store exists only while a test runs');
      return db;
    },
    get dir() {
      return dir;
    },
  };
}

/** A job row as enqueue writes it: a carom run on codex, with `overrides`. */
export const jobRow = (id: string, overrides: Partial<NewJobRow> = {}): NewJobRow => ({
  id, accountId: 'a', origin: null, testCaseSlug: 'carom', testCaseVersion: 'v1.1.0', variant: 'base', harnessSlug: 'codex', modelId: 'm',
  provider: null, engine: null, testType: 'end-to-end', ggConfigId: null, ggPreset: null, request: '{}', enqueuedAt: '2026-11-26T00:00:00.000Z',
  ...overrides,
});

/**
 * Caps the store at the pages it has, as a full disk would: SQLite itself then answers
 * SQLITE_FULL to a write that needs another page (writes that fit in a page still land).
 */
export function fillStore(db: Database): () => void {
  const unbounded = db.pragma('max_page_count', { simple: true }) as number;
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  return () => void db.pragma(`max_page_count = ${unbounded}`);
}
