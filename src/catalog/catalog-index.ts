import type { Kysely, Selectable } from 'kysely';
import { lockAgainstWrites, writeTransaction, type BackendStore } from '../db/dialect.js';
import type { StoreSchema, TestCaseVersionsTable } from '../db/store-schema.js';
import { storeMeta, type StoreMetaKey } from '../db/store-meta.js';
import type { TestCaseGroup } from './read-groups.js';

export interface IndexedVersion {
  slug: string;
  version: string;
  recordFormat: number;
  /** The current directory of this version in the definition store. */
  storeDir: string;
  fingerprint: string;
  contentHash: string;
  experimental: boolean;
  ingestedAt: string;
}

export interface VersionId {
  slug: string;
  version: string;
}

/** What a whole-catalog scan writes once its versions are in: all of it, or none. */
export interface ScanEnd {
  /** Versions the checkout no longer declares; one a run references meanwhile is kept. */
  prune: VersionId[];
  /** The catalog's groups, replacing the stored ones; null keeps them. */
  groups: TestCaseGroup[] | null;
  meta: ReadonlyArray<readonly [StoreMetaKey, string]>;
}

const fromRow = (row: Selectable<TestCaseVersionsTable>): IndexedVersion => ({
  slug: row.slug,
  version: row.version,
  recordFormat: row.record_format,
  storeDir: row.store_dir,
  fingerprint: row.fingerprint,
  contentHash: row.content_hash,
  experimental: row.experimental === 1,
  ingestedAt: row.ingested_at,
});

/** Five parameters a group: far under either engine's bound on one statement's parameters. */
const GROUPS_PER_INSERT = 5000;

const versionRows = (db: Kysely<StoreSchema>) => db.selectFrom('test_case_versions').selectAll();

const unreferenced = (db: Kysely<StoreSchema>, id: VersionId) =>
  db.deleteFrom('test_case_versions')
    .where('slug', '=', id.slug)
    .where('version', '=', id.version)
    .where((eb) => eb.not(eb.exists(
      eb.selectFrom('runs').select('runs.id').where('runs.test_case_slug', '=', id.slug).where('runs.test_case_version', '=', id.version),
    )));

/** The store's index of the definition store: which directory holds each (slug, version). */
export function catalogIndex(store: BackendStore) {
  const { db } = store;
  return {
    async get(slug: string, version: string): Promise<IndexedVersion | null> {
      const row = await versionRows(db).where('slug', '=', slug).where('version', '=', version).executeTakeFirst();
      return row ? fromRow(row) : null;
    },
    /** Every version, by slug then version text (byte order on both engines). */
    async all(): Promise<IndexedVersion[]> {
      return (await versionRows(db).orderBy('slug').orderBy('version').execute()).map(fromRow);
    },
    async count(): Promise<number> {
      const row = await db.selectFrom('test_case_versions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return row.n;
    },
    /** A case's versions by version text; callers order them by `compareVersions`. */
    async versionsOf(slug: string): Promise<IndexedVersion[]> {
      return (await versionRows(db).where('slug', '=', slug).orderBy('version').execute()).map(fromRow);
    },
    /** The versions of each of `slugs` (none when the list is empty), from one read, as `versionsOf` orders them. */
    async versionsOfEach(slugs: readonly string[]): Promise<IndexedVersion[]> {
      if (slugs.length === 0) return [];
      return (await versionRows(db).where('slug', 'in', slugs).orderBy('slug').orderBy('version').execute()).map(fromRow);
    },
    async put(version: IndexedVersion): Promise<void> {
      const row = {
        record_format: version.recordFormat,
        store_dir: version.storeDir,
        fingerprint: version.fingerprint,
        content_hash: version.contentHash,
        experimental: version.experimental ? 1 : 0,
        ingested_at: version.ingestedAt,
      };
      await db.insertInto('test_case_versions')
        .values({ slug: version.slug, version: version.version, ...row })
        .onConflict((oc) => oc.columns(['slug', 'version']).doUpdateSet(row))
        .execute();
    },
    async setFingerprint(slug: string, version: string, fingerprint: string): Promise<void> {
      await db.updateTable('test_case_versions').set({ fingerprint }).where('slug', '=', slug).where('version', '=', version).execute();
    },
    /** Which of `ids` a stored run references (`slug@version` each): a prune keeps those. */
    async referenced(ids: readonly VersionId[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const slugs = [...new Set(ids.map((id) => id.slug))];
      const wanted = new Set(ids.map((id) => `${id.slug}@${id.version}`));
      const rows = await db.selectFrom('runs').select(['test_case_slug as slug', 'test_case_version as version']).distinct()
        .where('test_case_slug', 'in', slugs).execute();
      return new Set(rows.map((row) => `${row.slug}@${row.version}`).filter((key) => wanted.has(key)));
    },
    async hasOtherFormats(format: number): Promise<boolean> {
      return (await db.selectFrom('test_case_versions').select('slug').where('record_format', '<>', format).limit(1).executeTakeFirst()) !== undefined;
    },
    async groups(): Promise<TestCaseGroup[]> {
      const rows = await db.selectFrom('test_case_groups').select(['slug', 'name', 'summary', 'cases']).orderBy('position').execute();
      return rows.map((row) => ({ slug: row.slug, name: row.name, ...(row.summary === null ? {} : { summary: row.summary }), cases: JSON.parse(row.cases) as string[] }));
    },
    /**
     * Prunes, replaces the groups and stamps the markers in one write transaction, so a scan
     * that fails here leaves the index as it was. Answers the versions actually pruned.
     */
    async endScan(end: ScanEnd): Promise<VersionId[]> {
      return writeTransaction(store, async (trx) => {
        // A run being stored now must be seen by the prune's NOT EXISTS, or its version goes
        // and the run can never be reviewed: the prune waits for it, as SQLite's one writer does.
        if (end.prune.length > 0) await lockAgainstWrites(store.engine, trx, 'runs');
        const pruned: VersionId[] = [];
        for (const id of end.prune) {
          const deleted = await unreferenced(trx, id).executeTakeFirst();
          if (deleted.numDeletedRows > 0n) pruned.push(id);
        }
        if (end.groups) {
          await trx.deleteFrom('test_case_groups').execute();
          const rows = end.groups.map((group, position) => ({ slug: group.slug, name: group.name, summary: group.summary ?? null, cases: JSON.stringify(group.cases), position }));
          for (let start = 0; start < rows.length; start += GROUPS_PER_INSERT) {
            await trx.insertInto('test_case_groups').values(rows.slice(start, start + GROUPS_PER_INSERT)).execute();
          }
        }
        const meta = storeMeta({ db: trx });
        for (const [key, value] of end.meta) await meta.set(key, value);
        return pruned;
      });
    },
  };
}

export type CatalogIndex = ReturnType<typeof catalogIndex>;
