import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CatalogFileError } from './catalog-file-error.js';
import { CatalogUnavailableError } from './catalog-unavailable-error.js';
import { readTomlFile } from './toml-fields.js';

export const GROUPS_DIR = 'test-case-groups';
export const GROUP_MANIFEST = 'test-case-group.toml';

/** `GET /test-case-groups` item. `cases` keeps authored order; the rank never rides the wire. */
export interface TestCaseGroup {
  slug: string;
  name: string;
  summary?: string;
  cases: string[];
}

export interface ReadGroupsResult {
  /** In display order: ranked groups first by ascending rank, then by name. */
  groups: TestCaseGroup[];
  problems: CatalogFileError[];
}

/**
 * Reads `test-case-groups/<slug>/test-case-group.toml`. Members are not checked against
 * the catalog: real groups may name cases a checkout does not hold. A bad group file is a
 * problem reported beside the others, not the end of the scan.
 */
export async function readGroups(checkoutRoot: string): Promise<ReadGroupsResult> {
  // No groups folder means no groups; one that cannot be listed must not read as "none".
  const folders = await readdir(join(checkoutRoot, GROUPS_DIR), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new CatalogUnavailableError(`The catalog's ${GROUPS_DIR}/ folder cannot be listed (${error.message}); nothing was changed.`, { cause: error });
  });
  const ranked: { group: TestCaseGroup; rank: number | null }[] = [];
  const problems: CatalogFileError[] = [];
  for (const folder of folders.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))) {
    const file = `${GROUPS_DIR}/${folder.name}/${GROUP_MANIFEST}`;
    try {
      const toml = await readTomlFile(join(checkoutRoot, GROUPS_DIR, folder.name, GROUP_MANIFEST), file);
      const slug = toml.string('slug');
      if (slug !== folder.name) throw toml.fail(`"slug" must match the folder name "${folder.name}", got "${slug}"`);
      const cases = toml.stringArray('cases');
      if (cases.length === 0) throw toml.fail('"cases" must list at least one case');
      const duplicate = cases.find((member, index) => cases.indexOf(member) !== index);
      if (duplicate !== undefined) throw toml.fail(`"cases" lists "${duplicate}" twice`);
      const rank = toml.optionalNumber('rank') ?? null;
      const summary = toml.optionalString('summary');
      const group: TestCaseGroup = { slug, name: toml.string('name'), ...(summary === undefined ? {} : { summary }), cases };
      ranked.push({ group, rank });
    } catch (error) {
      problems.push(error instanceof CatalogFileError ? error : new CatalogFileError(file, 'cannot be read', { cause: error }));
    }
  }
  ranked.sort((a, b) => {
    if (a.rank !== b.rank) {
      if (a.rank === null) return 1;
      if (b.rank === null) return -1;
      return a.rank - b.rank;
    }
    return a.group.name.localeCompare(b.group.name, 'en') || (a.group.slug < b.group.slug ? -1 : 1);
  });
  return { groups: ranked.map(({ group }) => group), problems };
}
