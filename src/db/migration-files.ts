import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One numbered migration file: `NNNN_name.sql`. */
export interface MigrationFile {
  id: number;
  name: string;
  sql(): string;
}

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/**
 * The numbered migrations in `dir`, in order, and the newest number among them. Both engines'
 * runners read their folder through this, so they agree on what a migration is.
 */
export function readMigrations(dir: string): { files: MigrationFile[]; newestKnown: number } {
  const names = readdirSync(dir).filter((name) => MIGRATION_FILE.test(name)).sort();
  // Two files with one number: the second would be taken as applied and silently skipped.
  const clash = names.find((name, i) => i > 0 && name.slice(0, 4) === names[i - 1]!.slice(0, 4));
  if (clash) throw new Error(`Two migrations in ${dir} share the number ${clash.slice(0, 4)} (${names.filter((name) => name.startsWith(clash.slice(0, 4))).join(', ')}); renumber one.`);
  const files = names.map((name) => ({ id: Number(MIGRATION_FILE.exec(name)![1]), name, sql: () => readFileSync(join(dir, name), 'utf8') }));
  return { files, newestKnown: Math.max(0, ...files.map((file) => file.id)) };
}

/** The refusal of a store that a newer build has migrated, the same on both engines. */
export function newerBuildError(store: string, newer: Array<{ name: string }>, newestKnown: number): Error {
  return new Error(
    `${store} was migrated by a newer build (${newer.map((row) => row.name).join(', ')}); this build knows migrations up to ` +
      `${String(newestKnown).padStart(4, '0')}. Run the newer build, or restore a backup taken before it.`,
  );
}
