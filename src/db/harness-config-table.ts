import type { Database } from './open-database.js';

/** A stored cap; `revision` orders writes (see migration 0070). */
export interface HarnessCapRow {
  slug: string;
  maxParallelism: number | null;
  revision: number;
}

export function harnessConfigTable(db: Database) {
  const all = db.prepare<[], HarnessCapRow>('SELECT slug, max_parallelism AS maxParallelism, revision FROM harness_config');
  const upsert = db.prepare<[string, number | null, string], number>(
    `INSERT INTO harness_config (slug, max_parallelism, updated_at, revision)
       VALUES (?, ?, ?, (SELECT COALESCE(MAX(revision), 0) + 1 FROM harness_config))
     ON CONFLICT (slug) DO UPDATE SET max_parallelism = excluded.max_parallelism, updated_at = excluded.updated_at,
       revision = excluded.revision
     RETURNING revision`,
  ).pluck();
  return {
    /** slug -> cap, for harnesses that have one. */
    caps(): Map<string, number> {
      return new Map(all.all().filter((row) => row.maxParallelism !== null).map((row) => [row.slug, row.maxParallelism!]));
    },
    /** Every stored row, capped or not, with its revision. */
    rows: (): HarnessCapRow[] => all.all(),
    /** Stores a cap; answers its revision, newer than any stored before it. */
    set: (slug: string, maxParallelism: number | null): number => upsert.get(slug, maxParallelism, new Date().toISOString())!,
  };
}
