import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a migration does to the builds still serving while a fleet upgrades. An `expand`
 * step only adds (tables, columns with defaults, indexes): a process of the previous build
 * keeps working beside it, and may even start on the migrated database. A `contract` step
 * drops, renames or changes what an older build reads: it ships one release after the
 * expand it completes, once no process of the release before runs. A migration without a
 * mark counts as a contract step (those written before the marks; the migration manifest
 * test requires a mark on every newer one).
 */
export type UpgradeStep = 'expand' | 'contract';

/** One numbered migration file: `NNNN_name.sql`. */
export interface MigrationFile {
  id: number;
  name: string;
  step: UpgradeStep;
  sql(): string;
}

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;
/** A migration's mark, on a line of its own among its leading comments: `-- upgrade: expand`. */
const UPGRADE_MARK = /^-- upgrade: (expand|contract)\b/m;

/** The step `text` (a migration's SQL) declares, or null when it declares none. */
export function declaredStep(text: string): UpgradeStep | null {
  return (UPGRADE_MARK.exec(text)?.[1] as UpgradeStep | undefined) ?? null;
}

/**
 * The numbered migrations in `dir`, in order, and the newest number among them. Both engines'
 * runners read their folder through this, so they agree on what a migration is.
 */
export function readMigrations(dir: string): { files: MigrationFile[]; newestKnown: number } {
  const names = readdirSync(dir).filter((name) => MIGRATION_FILE.test(name)).sort();
  // Two files with one number: the second would be taken as applied and silently skipped.
  const clash = names.find((name, i) => i > 0 && name.slice(0, 4) === names[i - 1]!.slice(0, 4));
  if (clash) throw new Error(`Two migrations in ${dir} share the number ${clash.slice(0, 4)} (${names.filter((name) => name.startsWith(clash.slice(0, 4))).join(', ')}); renumber one.`);
  const files = names.map((name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    return { id: Number(MIGRATION_FILE.exec(name)![1]), name, step: declaredStep(text) ?? 'contract', sql: () => text };
  });
  return { files, newestKnown: Math.max(0, ...files.map((file) => file.id)) };
}

/** A migration the database has applied, as its `schema_migrations` row says (`expand`: 1 for an expand step). */
export interface AppliedMigration {
  id: number;
  name: string;
  expand: number;
}

/**
 * Whether this build may serve a database whose applied migrations are `applied`: it may
 * when every migration newer than it knows is an expand step, which left everything it
 * reads in place. Throws the refusal otherwise, the same on both engines.
 */
export function checkNewerMigrations(store: string, applied: AppliedMigration[], newestKnown: number): void {
  const breaking = applied.filter((row) => row.id > newestKnown && row.expand !== 1);
  if (breaking.length > 0) throw newerBuildError(store, breaking, newestKnown);
}

/** The refusal of a store that a newer build has migrated past what this one can read, the same on both engines. */
export function newerBuildError(store: string, newer: Array<{ name: string }>, newestKnown: number): Error {
  return new Error(
    `${store} was migrated by a newer build (${newer.map((row) => row.name).join(', ')}); this build knows migrations up to ` +
      `${String(newestKnown).padStart(4, '0')}. Run the newer build, or restore a backup taken before it.`,
  );
}
