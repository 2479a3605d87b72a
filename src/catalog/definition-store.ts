import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SLUG_PATTERN, VERSION_PATTERN } from './catalog-vocabulary.js';
import type { DefinitionCopies } from './definition-copies.js';
import type { ReadVersionResult } from './read-version.js';
import type { ReferenceToRender, StaticReference, Viewport } from './read-references.js';
import { RESOLVED_RECORD_FORMAT } from './record-format.js';
import { servedArtifacts, type ServedArtifacts } from './served-artifacts.js';
import type { ResolvedVersion } from './resolved-version.js';
import { walkVersionFiles } from './walk-version-files.js';
import { forEachLimited } from '../runtime/concurrency-limit.js';

/** What `resolved.json` holds: the served record and what the store needs to serve its files. */
export interface StoredVersion {
  recordFormat: number;
  slug: string;
  version: string;
  /** The checkout folder this copy was made from, checkout-relative: a later scan that cannot read it keeps this copy. */
  sourceRelDir?: string;
  /** `contentHash` of the checkout folder this copy was made from. */
  contentHash: string;
  /** `statFingerprint` of that folder at the time, for the cheap unchanged check. */
  fingerprint: string;
  resolved: ResolvedVersion;
  referencesToRender: ReferenceToRender[];
  staticReferences: StaticReference[];
  showcaseDirs: Record<string, string>;
  /** What the artifact route may serve of `source/`. */
  artifacts?: ServedArtifacts;
}

/** Inside one stored version directory. */
export interface StoreLayout {
  resolvedJson: string;
  /** The copy of the version folder; store-relative keys resolve here. */
  sourceDir: string;
  /** `references/<scope>/<file>`: rendered PNGs and copied reference media. */
  referenceFile(scope: string, file: string): string;
}

export function storeLayout(versionDir: string): StoreLayout {
  return {
    resolvedJson: join(versionDir, 'resolved.json'),
    sourceDir: join(versionDir, 'source'),
    referenceFile: (scope, file) => join(versionDir, 'references', scope, file),
  };
}

/** An HTML mockup to render, with absolute paths inside the staged directory. */
export interface RenderTarget {
  view: string;
  scope: string;
  /** The mockup's key in the version folder (`reference/title.html`), for reports. */
  source: string;
  htmlFile: string;
  outFile: string;
  viewport: Viewport | null;
}

/** A version copied under a temporary name: render into it, then commit or discard. */
export interface StagedVersion {
  dir: string;
  renderTargets: RenderTarget[];
  /** Renames the staged directory to its final, unique name and returns that path. */
  commit(): Promise<string>;
  discard(): Promise<void>;
}

const STAGING_PREFIX = '.staging-';
// Creating files is the slow part of a copy; 32 in flight keep the disk busy (several
// times faster than one at a time) without exhausting file handles.
const COPY_CONCURRENCY = 32;

/**
 * The definition store on disk: `<root>/<slug>/<version>/<hash>-<unique>/` holding
 * `resolved.json`, `source/` (the version folder) and `references/`. A version is written
 * whole under a temporary name and renamed into place, and each write gets a fresh
 * directory, so the index can switch to it in one step and a crash leaves the previous
 * copy untouched. Old directories go through `removeStaleDirs` once nothing points at them.
 */
export class DefinitionStore {
  /** `copies` shares committed versions through the bucket (`s3` driver); without it, disk only. */
  constructor(readonly root: string, private readonly copies: DefinitionCopies | null = null) {}

  versionRoot(slug: string, version: string): string {
    // Both become path segments; the patterns leave no room for `..` or separators.
    if (!SLUG_PATTERN.test(slug)) throw new Error(`Refusing store path for slug "${slug}".`);
    if (!VERSION_PATTERN.test(version)) throw new Error(`Refusing store path for version "${version}".`);
    return join(this.root, slug, version);
  }

  /**
   * Copies `sourceDir` (a version folder of the checkout at `checkoutRoot`), the static
   * reference media and `resolved.json` into a staging directory.
   */
  async stage(input: {
    read: ReadVersionResult;
    sourceDir: string;
    /** `sourceDir` relative to the checkout root, recorded for prune decisions. */
    sourceRelDir?: string;
    checkoutRoot: string;
    contentHash: string;
    fingerprint: string;
  }): Promise<StagedVersion> {
    const { record } = input.read;
    const parent = this.versionRoot(record.slug, record.version);
    await mkdir(parent, { recursive: true });
    const unique = randomBytes(4).toString('hex');
    const staging = join(parent, `${STAGING_PREFIX}${unique}`);
    const finalDir = join(parent, `${input.contentHash.slice(0, 16)}-${unique}`);
    const layout = storeLayout(staging);
    try {
      const files = await walkVersionFiles(input.sourceDir, input.checkoutRoot);
      const targetOf = (key: string) => join(layout.sourceDir, ...key.split('/'));
      // Folders first, each once, so the copies need no mkdir of their own. The reference
      // folders are made here too, so the renderer can write its PNGs straight in.
      const folders = new Set(files.map((file) => dirname(targetOf(file.key))));
      for (const reference of [...input.read.referencesToRender, ...input.read.staticReferences]) {
        folders.add(dirname(layout.referenceFile(reference.scope, reference.outFile)));
      }
      for (const folder of [...folders].sort()) await mkdir(folder, { recursive: true });
      await forEachLimited(files, COPY_CONCURRENCY, (file) => copyFile(file.absolute, targetOf(file.key)));
      for (const media of input.read.staticReferences) {
        await copyFile(targetOf(media.mediaPath), layout.referenceFile(media.scope, media.outFile));
      }
      const stored: StoredVersion = {
        recordFormat: RESOLVED_RECORD_FORMAT,
        slug: record.slug,
        version: record.version,
        ...(input.sourceRelDir === undefined ? {} : { sourceRelDir: input.sourceRelDir }),
        contentHash: input.contentHash,
        fingerprint: input.fingerprint,
        resolved: record,
        referencesToRender: input.read.referencesToRender,
        staticReferences: input.read.staticReferences,
        showcaseDirs: input.read.showcaseDirs,
        artifacts: servedArtifacts(input.read),
      };
      await writeFile(layout.resolvedJson, JSON.stringify(stored));
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
    return {
      dir: staging,
      renderTargets: input.read.referencesToRender.map((reference) => ({
        view: reference.view,
        scope: reference.scope,
        source: reference.htmlPath,
        htmlFile: join(layout.sourceDir, ...reference.htmlPath.split('/')),
        outFile: layout.referenceFile(reference.scope, reference.outFile),
        viewport: reference.viewport,
      })),
      commit: async () => {
        await rename(staging, finalDir);
        // Sent before anything points at it: a version the bucket lacks is never indexed.
        await this.copies?.send(finalDir).catch(async (error: unknown) => {
          await rm(finalDir, { recursive: true, force: true });
          throw error;
        });
        return finalDir;
      },
      discard: () => rm(staging, { recursive: true, force: true }),
    };
  }

  /** Stages and commits at once, for a version with nothing to render. */
  async writeVersion(input: Parameters<DefinitionStore['stage']>[0]): Promise<string> {
    const staged = await this.stage(input);
    if (staged.renderTargets.length > 0) {
      await staged.discard();
      throw new Error(`${input.read.record.slug} ${input.read.record.version} has references to render; use stage().`);
    }
    return staged.commit();
  }

  /**
   * Deletes every directory of `(slug, version)` except `keepDir`, including staging
   * leftovers of a crashed scan. Call it after the index points at `keepDir`.
   */
  async removeStaleDirs(slug: string, version: string, keepDir: string): Promise<string[]> {
    const parent = this.versionRoot(slug, version);
    const removed: string[] = [];
    for (const name of await readdir(parent).catch(() => [] as string[])) {
      const dir = join(parent, name);
      if (dir === keepDir) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    }
    await this.copies?.removeOthers(slug, version, keepDir);
    return removed;
  }

  /**
   * Deletes every `.staging-*` directory of the store: what a scan that crashed mid-copy or
   * mid-render left behind. Only safe while no scan runs (see the ingest processor).
   */
  async sweepStaging(): Promise<string[]> {
    const removed: string[] = [];
    for (const slug of await subfolders(this.root)) {
      for (const version of await subfolders(join(this.root, slug))) {
        for (const name of await subfolders(join(this.root, slug, version))) {
          if (!name.startsWith(STAGING_PREFIX)) continue;
          await rm(join(this.root, slug, version, name), { recursive: true, force: true });
          removed.push(join(this.root, slug, version, name));
        }
      }
    }
    return removed;
  }

  /** Deletes every stored directory of a pruned `(slug, version)`. */
  async removeVersion(slug: string, version: string): Promise<void> {
    await rm(this.versionRoot(slug, version), { recursive: true, force: true });
    await this.copies?.removeOthers(slug, version, null);
  }
}

/** Names of the folders in `dir`; none when it does not exist (an empty store). */
async function subfolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

/** Reads a stored version's `resolved.json`. */
export async function readStoredVersion(versionDir: string): Promise<StoredVersion> {
  return JSON.parse(await readFile(storeLayout(versionDir).resolvedJson, 'utf8')) as StoredVersion;
}
