import type { Database } from './open-database.js';

export function harnessConfigTable(db: Database) {
  const all = db.prepare<[], { slug: string; maxParallelism: number | null }>(
    'SELECT slug, max_parallelism AS maxParallelism FROM harness_config',
  );
  const upsert = db.prepare<[string, number | null, string]>(
    `INSERT INTO harness_config (slug, max_parallelism, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (slug) DO UPDATE SET max_parallelism = excluded.max_parallelism, updated_at = excluded.updated_at`,
  );
  return {
    /** slug -> cap, for harnesses that have one. */
    caps(): Map<string, number> {
      return new Map(all.all().filter((row) => row.maxParallelism !== null).map((row) => [row.slug, row.maxParallelism!]));
    },
    set: (slug: string, maxParallelism: number | null) => void upsert.run(slug, maxParallelism, new Date().toISOString()),
  };
}
