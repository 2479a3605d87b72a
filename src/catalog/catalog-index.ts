import type { Database } from '../db/open-database.js';
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

interface Row {
  slug: string;
  version: string;
  record_format: number;
  store_dir: string;
  fingerprint: string;
  content_hash: string;
  experimental: number;
  ingested_at: string;
}

const fromRow = (row: Row): IndexedVersion => ({
  slug: row.slug,
  version: row.version,
  recordFormat: row.record_format,
  storeDir: row.store_dir,
  fingerprint: row.fingerprint,
  contentHash: row.content_hash,
  experimental: row.experimental === 1,
  ingestedAt: row.ingested_at,
});

/** The SQLite index of the definition store: which directory holds each (slug, version). */
export function catalogIndex(db: Database) {
  const selectOne = db.prepare<[string, string], Row>('SELECT * FROM test_case_versions WHERE slug = ? AND version = ?');
  const selectAll = db.prepare<[], Row>('SELECT * FROM test_case_versions ORDER BY slug, version');
  const selectOfSlug = db.prepare<[string], Row>('SELECT * FROM test_case_versions WHERE slug = ?');
  const upsert = db.prepare(
    `INSERT INTO test_case_versions (slug, version, record_format, store_dir, fingerprint, content_hash, experimental, ingested_at)
     VALUES (@slug, @version, @recordFormat, @storeDir, @fingerprint, @contentHash, @experimental, @ingestedAt)
     ON CONFLICT (slug, version) DO UPDATE SET record_format = excluded.record_format, store_dir = excluded.store_dir,
       fingerprint = excluded.fingerprint, content_hash = excluded.content_hash, experimental = excluded.experimental,
       ingested_at = excluded.ingested_at`,
  );
  const setFingerprint = db.prepare('UPDATE test_case_versions SET fingerprint = ? WHERE slug = ? AND version = ?');
  const remove = db.prepare('DELETE FROM test_case_versions WHERE slug = ? AND version = ?');
  const referencedByRuns = db
    .prepare<[string, string], number>('SELECT EXISTS (SELECT 1 FROM runs WHERE test_case_slug = ? AND test_case_version = ?)')
    .pluck();
  const otherFormats = db.prepare<[number], number>('SELECT EXISTS (SELECT 1 FROM test_case_versions WHERE record_format <> ?)').pluck();
  const selectGroups = db.prepare<[], { slug: string; name: string; summary: string | null; cases: string }>(
    'SELECT slug, name, summary, cases FROM test_case_groups ORDER BY position',
  );
  const clearGroups = db.prepare('DELETE FROM test_case_groups');
  const insertGroup = db.prepare('INSERT INTO test_case_groups (slug, name, summary, cases, position) VALUES (?, ?, ?, ?, ?)');

  return {
    get: (slug: string, version: string) => {
      const row = selectOne.get(slug, version);
      return row ? fromRow(row) : null;
    },
    all: () => selectAll.all().map(fromRow),
    versionsOf: (slug: string) => selectOfSlug.all(slug).map(fromRow),
    put: (version: IndexedVersion) => void upsert.run({ ...version, experimental: version.experimental ? 1 : 0 }),
    setFingerprint: (slug: string, version: string, fingerprint: string) => void setFingerprint.run(fingerprint, slug, version),
    remove: (slug: string, version: string) => void remove.run(slug, version),
    isReferencedByRuns: (slug: string, version: string) => referencedByRuns.get(slug, version) === 1,
    hasOtherFormats: (format: number) => otherFormats.get(format) === 1,
    groups: (): TestCaseGroup[] =>
      selectGroups.all().map((row) => ({ slug: row.slug, name: row.name, ...(row.summary === null ? {} : { summary: row.summary }), cases: JSON.parse(row.cases) as string[] })),
    replaceGroups: db.transaction((groups: TestCaseGroup[]) => {
      clearGroups.run();
      groups.forEach((group, position) => insertGroup.run(group.slug, group.name, group.summary ?? null, JSON.stringify(group.cases), position));
    }),
  };
}

export type CatalogIndex = ReturnType<typeof catalogIndex>;
