import { isOutage } from '../errors.js';
import { readStoredVersion, storeLayout, type StoredVersion } from './definition-store.js';
import type { CatalogIndex, IndexedVersion } from './catalog-index.js';
import type { DefinitionCopies } from './definition-copies.js';

const CACHE_LIMIT = 512;

export interface LoadedVersion {
  indexed: IndexedVersion;
  stored: StoredVersion;
  /** The stored version's directory and its `source/` copy of the version folder. */
  dir: string;
  sourceDir: string;
}

/**
 * Reads stored versions through the index. A store directory is never rewritten once
 * committed (a re-ingest writes a new one), so its parsed `resolved.json` is cached by path.
 * With `copies` (the `s3` driver) the directory is this machine's copy, fetched from the
 * bucket on first use.
 */
export function storedVersions(index: CatalogIndex, copies: Pick<DefinitionCopies, 'local'> | null = null) {
  const cache = new Map<string, StoredVersion>();

  async function load(indexed: IndexedVersion): Promise<LoadedVersion> {
    const dir = copies ? await copies.local(indexed.storeDir) : indexed.storeDir;
    let stored = cache.get(dir);
    if (!stored) {
      stored = await readStoredVersion(dir);
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
      cache.set(dir, stored);
    }
    return { indexed, stored, dir, sourceDir: storeLayout(dir).sourceDir };
  }

  /**
   * The versions whose stored copy can be read; unreadable ones are left out. A store that
   * cannot answer now (503, the bucket down) throws instead: leaving those out would answer
   * a catalog with cases missing.
   */
  async function loadReadable(indexed: IndexedVersion[]): Promise<LoadedVersion[]> {
    const loaded = await Promise.allSettled(indexed.map(load));
    const outage = loaded.find((result) => result.status === 'rejected' && isOutage(result.reason));
    if (outage) throw (outage as PromiseRejectedResult).reason;
    return loaded.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  }

  return {
    /** Null when the version was never ingested. */
    async get(slug: string, version: string): Promise<LoadedVersion | null> {
      const indexed = await index.get(slug, version);
      return indexed ? load(indexed) : null;
    },
    load,
    loadReadable,
    /** Every version of a case whose stored copy can be read; unreadable ones are left out. */
    async versionsOf(slug: string): Promise<LoadedVersion[]> {
      return loadReadable(await index.versionsOf(slug));
    },
  };
}

export type StoredVersions = ReturnType<typeof storedVersions>;
