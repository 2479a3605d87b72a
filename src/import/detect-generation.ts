import { ImportRefused } from './import-refused.js';
import { generationOf, KNOWN_MIGRATIONS, MIGRATION_MARKERS, ordinalOf, type Generation, type KnownMigration } from './known-migrations.js';
import type { SourceDb } from './source-db.js';

/** What detection found in the original's backend database: its generation, and the shapes the mappers branch on. */
export interface SourceShape {
  generation: Generation;
  migrations: KnownMigration[];
  /** Every table, with its columns. */
  columns: Map<string, Set<string>>;
  has(table: string, column?: string): boolean;
}

const KNOWN = new Set<string>(KNOWN_MIGRATIONS);

/**
 * Tells the original's generation from the source itself: every name in `seaql_migrations`
 * must be one this importer knows (an unknown one is a newer build's), and columns, not only
 * names, decide what is there, because migration #1 was edited in place and SQLite runs the
 * original's migrations outside a transaction. Refuses, naming what it found, a database that
 * is not the original's, a newer build's and one caught mid-migration.
 */
export async function detectGeneration(source: SourceDb): Promise<SourceShape> {
  const tables = await source.tables();
  const columns = new Map<string, Set<string>>();
  for (const table of tables) columns.set(table, new Set(await source.columns(table)));
  const has = (table: string, column?: string) => {
    const found = columns.get(table);
    return found !== undefined && (column === undefined || found.has(column));
  };
  if (!has('seaql_migrations', 'version')) {
    throw new ImportRefused(
      `${source.label} is not a database of the original system: it has no seaql_migrations table ` +
        `(tables found: ${tables.slice(0, 12).join(', ') || 'none'}${tables.length > 12 ? ', …' : ''}).`,
    );
  }
  const applied = (await source.all('SELECT version FROM seaql_migrations ORDER BY version')).map((row) => String(row.version));
  const unknown = applied.filter((name) => !KNOWN.has(name));
  if (unknown.length > 0) {
    throw new ImportRefused(
      `${source.label} was migrated by a newer build of the original than this importer knows (${unknown.join(', ')}); ` +
        `it knows ${KNOWN_MIGRATIONS.length} migrations, up to ${KNOWN_MIGRATIONS[KNOWN_MIGRATIONS.length - 1]}. Nothing was written.`,
    );
  }
  if (!applied.includes(KNOWN_MIGRATIONS[0]) || !has('run', 'record_json')) {
    throw new ImportRefused(`${source.label} holds seaql_migrations but not the original's run table: it is not the original system's backend database. Nothing was written.`);
  }
  const migrations = applied as KnownMigration[];
  const halfApplied: string[] = [];
  for (const [name, marker] of Object.entries(MIGRATION_MARKERS) as Array<[KnownMigration, { table: string; column?: string }]>) {
    const present = has(marker.table, marker.column);
    const recorded = migrations.includes(name);
    const where = marker.column ? `${marker.table}.${marker.column}` : `table ${marker.table}`;
    if (recorded && !present) halfApplied.push(`${name} is recorded but ${where} is missing`);
    if (!recorded && present) halfApplied.push(`${where} exists but ${name} is not recorded`);
  }
  if (halfApplied.length > 0) {
    throw new ImportRefused(
      `${source.label} is mid-migration (${halfApplied.join('; ')}): let the original finish starting up (or restore its backup), then import again. Nothing was written.`,
    );
  }
  const newest = Math.max(...migrations.map(ordinalOf));
  return { generation: generationOf(newest), migrations, columns, has };
}

/** The auth service's database: `user` and `token` as its single migration makes them. */
export async function checkAuthSource(source: SourceDb): Promise<void> {
  const columns = async (table: string) => new Set((await source.tables()).includes(table) ? await source.columns(table) : []);
  const user = await columns('user');
  const token = await columns('token');
  const missing = [
    ...['id', 'username', 'display_name', 'password_hash', 'created_at'].filter((c) => !user.has(c)).map((c) => `user.${c}`),
    ...['user_id', 'token_hash', 'created_at', 'expires_at'].filter((c) => !token.has(c)).map((c) => `token.${c}`),
  ];
  if (missing.length > 0) {
    throw new ImportRefused(`${source.label} is not the original's auth database: it lacks ${missing.join(', ')}. Nothing was written.`);
  }
}
