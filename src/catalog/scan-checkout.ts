import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CatalogFileError } from './catalog-file-error.js';
import { CatalogUnavailableError } from './catalog-unavailable-error.js';
import { VERSION_PATTERN } from './catalog-vocabulary.js';
import { GROUP_MANIFEST, GROUPS_DIR } from './read-groups.js';
import { GAME_JAM_MANIFEST, TEST_CASE_MANIFEST } from './read-version.js';
import { FieldReader, parseToml } from './toml-fields.js';
import { toPosix } from './version-folder.js';

export interface FoundVersion {
  kind: 'test-case' | 'game-jam';
  /** Absolute path of the version folder. */
  dir: string;
  /** Version folder relative to the checkout root, forward slashes. */
  relDir: string;
  /** Manifest relative to the checkout root, for messages. */
  manifestFile: string;
  /** The slug the manifest declares: the store key, not necessarily the folder's name. */
  slug: string;
  /** The version folder's name, e.g. `v1.1.0`. */
  version: string;
  /** Name of the case folder holding the version folders; selectors may use it. */
  folderName: string;
}

/** A version folder the scan found but cannot use; its stored copy, if any, must stay. */
export interface ScanProblem {
  /** Every version folder concerned, checkout-relative (two for a duplicate slug@version). */
  relDirs: string[];
  /** The declared slug when it could be read, else the case folder's name. */
  slug: string;
  version: string;
  error: CatalogFileError;
}

export interface ScanResult {
  /** Sorted by folder, so scans are reproducible. */
  versions: FoundVersion[];
  /** `test-case-groups/<slug>/test-case-group.toml` files, checkout-relative; see readGroups. */
  groupFiles: string[];
  /** Version folders that could not be used; the rest of the scan goes on without them. */
  problems: ScanProblem[];
}

const SKIPPED_DIRS = new Set(['node_modules']);

/**
 * Finds every version folder of a checkout: `test-cases/**\/v<major>.<minor>.../test-case.toml`
 * in both the `<type>/<difficulty>/<folder>/` and the older `<slug>/` layouts, and
 * `game-jams/<slug>/<version>/game-jam.toml`, plus the group manifests. Reads only each manifest's slug, so an
 * unchanged re-ingest stays cheap; the full read happens for versions that changed.
 */
export async function scanCheckout(checkoutRoot: string): Promise<ScanResult> {
  await requireDirectory(checkoutRoot, 'The catalog root');
  await requireDirectory(join(checkoutRoot, 'test-cases'), 'The catalog\'s test-cases/ folder');
  const candidates: { dir: string; kind: FoundVersion['kind'] }[] = [];
  await findTestCaseVersions(join(checkoutRoot, 'test-cases'), candidates);
  for (const jam of await subdirectories(join(checkoutRoot, 'game-jams'), { optional: true })) {
    for (const version of await subdirectories(jam)) {
      if (VERSION_PATTERN.test(basename(version)) && (await isFile(join(version, GAME_JAM_MANIFEST)))) {
        candidates.push({ dir: version, kind: 'game-jam' });
      }
    }
  }
  const problems: ScanProblem[] = [];
  const found: FoundVersion[] = [];
  for (const candidate of candidates) {
    const relDir = toPosix(candidate.dir.slice(checkoutRoot.length).replace(/^[\\/]+/, ''));
    const manifestFile = `${relDir}/${candidate.kind === 'game-jam' ? GAME_JAM_MANIFEST : TEST_CASE_MANIFEST}`;
    try {
      const slug = await readSlug(join(checkoutRoot, manifestFile), manifestFile);
      found.push({
        kind: candidate.kind, dir: candidate.dir, relDir, manifestFile, slug,
        version: basename(candidate.dir), folderName: basename(dirname(candidate.dir)),
      });
    } catch (error) {
      problems.push({
        relDirs: [relDir], slug: basename(dirname(candidate.dir)), version: basename(candidate.dir),
        error: error instanceof CatalogFileError ? error : new CatalogFileError(manifestFile, `cannot be read (${(error as Error).message})`, { cause: error }),
      });
    }
  }
  found.sort((a, b) => (a.relDir < b.relDir ? -1 : a.relDir > b.relDir ? 1 : 0));
  const groupFiles: string[] = [];
  for (const group of await subdirectories(join(checkoutRoot, GROUPS_DIR), { optional: true })) {
    if (await isFile(join(group, GROUP_MANIFEST))) groupFiles.push(`${GROUPS_DIR}/${basename(group)}/${GROUP_MANIFEST}`);
  }
  return { versions: dropDuplicates(found, problems), groupFiles: groupFiles.sort(), problems };
}

async function findTestCaseVersions(dir: string, into: { dir: string; kind: FoundVersion['kind'] }[]): Promise<void> {
  for (const child of await subdirectories(dir)) {
    // A version folder is a leaf of the scan: its own subfolders (validation/, references/) are content.
    if (VERSION_PATTERN.test(basename(child)) && (await isFile(join(child, TEST_CASE_MANIFEST)))) {
      into.push({ dir: child, kind: 'test-case' });
    } else {
      await findTestCaseVersions(child, into);
    }
  }
}

// The slug is a root key, so it sits above the first table header; a regex finds the usual
// `slug = "..."` without parsing a 3,000-line manifest. Anything unusual falls back to TOML.
const SLUG_LINE = /^[ \t]*slug[ \t]*=[ \t]*(?:"([^"\\\n]*)"|'([^'\n]*)')[ \t]*(?:#.*)?$/m;

async function readSlug(path: string, file: string): Promise<string> {
  const text = await readFile(path, 'utf8');
  const header = text.search(/^[ \t]*\[/m);
  const match = SLUG_LINE.exec(header === -1 ? text : text.slice(0, header));
  const slug = match?.[1] ?? match?.[2];
  if (slug) return slug;
  return new FieldReader(file, parseToml(text, file)).string('slug');
}

/** Two folders declaring the same slug and version: neither can be trusted to be the one. */
function dropDuplicates(found: FoundVersion[], problems: ScanProblem[]): FoundVersion[] {
  const byKey = new Map<string, FoundVersion[]>();
  for (const version of found) {
    const key = `${version.slug}@${version.version}`;
    byKey.set(key, [...(byKey.get(key) ?? []), version]);
  }
  const kept: FoundVersion[] = [];
  for (const version of found) {
    const same = byKey.get(`${version.slug}@${version.version}`)!;
    if (same.length === 1) {
      kept.push(version);
    } else if (same[0] === version) {
      const others = same.slice(1).map((other) => other.manifestFile).join(', ');
      problems.push({
        relDirs: same.map((other) => other.relDir), slug: version.slug, version: version.version,
        error: new CatalogFileError(version.manifestFile, `declares ${version.slug} ${version.version}, as does ${others}; neither is ingested`),
      });
    }
  }
  return kept;
}

/**
 * The folders inside `dir`. A folder that cannot be listed fails the scan: an empty list
 * would read as "this part of the catalog was deleted" and prune it. Only an `optional`
 * folder (`game-jams/`, `test-case-groups/`) may be absent.
 */
async function subdirectories(dir: string, { optional = false } = {}): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (optional && (error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new CatalogUnavailableError(`The catalog folder ${dir} cannot be listed (${(error as Error).message}); nothing was changed.`, { cause: error });
  }
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name))
    .map((entry) => join(dir, entry.name));
}

async function requireDirectory(path: string, what: string): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    throw new CatalogUnavailableError(`${what} ${path} cannot be read (${(error as Error).message}); nothing was changed.`, { cause: error });
  }
  if (!isDirectory) throw new CatalogUnavailableError(`${what} ${path} is not a folder; nothing was changed.`);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
