import type { BackendStore } from './dialect.js';
import { nextCapRevision } from './dialect.js';

/** A stored cap; `revision` orders writes (see migration 0070). */
export interface HarnessCapRow {
  slug: string;
  maxParallelism: number | null;
  revision: number;
}

export function harnessConfigTable(store: BackendStore) {
  const all = () => store.db.selectFrom('harness_config').select(['slug', 'max_parallelism as maxParallelism', 'revision']).execute();
  return {
    /** slug -> cap, for harnesses that have one. */
    async caps(): Promise<Map<string, number>> {
      return new Map((await all()).filter((row) => row.maxParallelism !== null).map((row) => [row.slug, row.maxParallelism!]));
    },
    /** Every stored row, capped or not, with its revision. */
    rows: (): Promise<HarnessCapRow[]> => all(),
    /**
     * Stores a cap; answers its revision, newer than any stored before it and never one a
     * concurrent writer (of any process) takes too.
     */
    async set(slug: string, maxParallelism: number | null): Promise<number> {
      const row = await store.db
        .insertInto('harness_config')
        .values({ slug, max_parallelism: maxParallelism, updated_at: new Date().toISOString(), revision: nextCapRevision(store.engine) })
        .onConflict((oc) =>
          oc.column('slug').doUpdateSet((eb) => ({
            max_parallelism: eb.ref('excluded.max_parallelism'),
            updated_at: eb.ref('excluded.updated_at'),
            // Drawn again under the row's lock: of two writers to one harness, the one that
            // writes last holds the newer revision, so Redis keeps its cap too.
            revision: nextCapRevision(store.engine),
          })),
        )
        .returning('revision')
        .executeTakeFirstOrThrow();
      return row.revision;
    },
  };
}
