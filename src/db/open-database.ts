import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';

export type Database = BetterSqlite3.Database;

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/** The backend's own migrations; the auth service passes its own folder. */
export const BACKEND_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * Opens (creating if needed) a SQLite file in WAL mode and applies every numbered
 * migration in `migrationsDir` it has not applied yet, each in its own transaction.
 */
export function openDatabase(file: string, migrationsDir: string = BACKEND_MIGRATIONS): Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, migrationsDir);
  return db;
}

function migrate(db: Database, migrationsDir: string): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
  const applied = new Set(db.prepare('SELECT id FROM schema_migrations').pluck().all() as number[]);
  const record = db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)');
  const files = readdirSync(migrationsDir).filter((name) => MIGRATION_FILE.test(name)).sort();
  for (const name of files) {
    const id = Number(MIGRATION_FILE.exec(name)![1]);
    if (applied.has(id)) continue;
    const sql = readFileSync(join(migrationsDir, name), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      record.run(id, name, new Date().toISOString());
    })();
  }
}
