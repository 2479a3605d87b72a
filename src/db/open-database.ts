import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { checkNewerMigrations, readMigrations, type AppliedMigration } from './migration-files.js';

export type Database = BetterSqlite3.Database;

/** The backend's own migrations; the auth service passes its own folder. */
export const BACKEND_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));

/** How long a process waits for another one's migrations before giving up (ms). */
const MIGRATION_WAIT = 5 * 60 * 1000;

/**
 * Bytes the write-ahead log file is cut back to each time it starts over. Without a limit
 * it keeps the size of the largest burst it ever held: enqueueing 200,000 jobs left a
 * 336 MB file, and the claim bench's million-job fill several gigabytes, for good.
 */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** How long a connection waits for another's write lock before failing (ms). */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * The settings every connection to the store runs with, this module's and the claim
 * writer's own alike.
 */
export function tuneConnection(db: Database): Database {
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  return db;
}

/**
 * Opens (creating if needed) a SQLite file in WAL mode and applies every numbered
 * migration in `migrationsDir` it has not applied yet. The API and `npm run worker` open
 * the same file, so the migrations run in one IMMEDIATE transaction: the second process
 * waits for the first and then finds nothing left to do. A database a newer build has
 * migrated is served when the newer migrations are all expand steps (migration-files.ts),
 * and refused with a message saying so otherwise.
 */
export function openDatabase(file: string, migrationsDir: string = BACKEND_MIGRATIONS, upTo = Infinity): Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = tuneConnection(new BetterSqlite3(file));
  try {
    migrateSqlite(db, migrationsDir, upTo);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Applies the migrations in `migrationsDir` numbered up to `upTo` that `db` has not applied yet (see openDatabase). */
export function migrateSqlite(db: Database, migrationsDir: string, upTo = Infinity): void {
  const { files, newestKnown } = readMigrations(migrationsDir);
  const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${MIGRATION_WAIT}`);
  try {
    db.transaction(() => {
      db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
      db.exec('CREATE TABLE IF NOT EXISTS schema_data_steps (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL) STRICT');
      const columns = db.prepare<[], { name: string }>('SELECT name FROM pragma_table_info(\'schema_migrations\')').all();
      if (!columns.some((column) => column.name === 'expand')) db.exec('ALTER TABLE schema_migrations ADD COLUMN expand INTEGER NOT NULL DEFAULT 0');
      const applied = db.prepare<[], AppliedMigration>('SELECT id, name, expand FROM schema_migrations ORDER BY id').all();
      checkNewerMigrations(db.name, applied, newestKnown);
      const done = new Set(applied.map((row) => row.id));
      const record = db.prepare('INSERT INTO schema_migrations (id, name, applied_at, expand) VALUES (?, ?, ?, ?)');
      for (const file of files) {
        if (done.has(file.id) || file.id > upTo) continue;
        db.exec(file.sql());
        record.run(file.id, file.name, new Date().toISOString(), file.step === 'expand' ? 1 : 0);
      }
    }).immediate();
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
}
