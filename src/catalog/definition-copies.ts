import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import type { BlobStore } from '../blob/blob-store.js';
import { SLUG_PATTERN, VERSION_PATTERN } from './catalog-vocabulary.js';
import { concurrencyLimit, forEachLimited } from '../runtime/concurrency-limit.js';

/** The blob store's area for ingested versions (the `s3` driver only: on `fs` they are DATA_DIR/definitions itself). */
const AREA = 'definitions';
/** `<content hash, 16 hex>-<unique, 8 hex>`: the name `DefinitionStore.stage` commits under. */
const COPY_NAME = /^[0-9a-f]{16}-[0-9a-f]{8}$/;
/** Written last, so its presence in the bucket says the copy is whole. */
const MARKER = 'resolved.json';
/** Files sent or fetched at once by one copy. */
const CONCURRENCY = 8;
/**
 * Bucket reads all fetches of this process make at once (a cold cache after a big re-ingest
 * asks for many copies together): well under the bucket client's 50 sockets, so driver
 * uploads and launches still find one.
 */
export const DEFINITION_FETCH_READS = 16;
// Per process, not per reader: the catalog, the snapshot grader and ingest each hold a
// `definitionCopies`, and their fetches share one queue and coalesce by target directory.
const fetchReads = concurrencyLimit(DEFINITION_FETCH_READS);
const fetching = new Map<string, Promise<string>>();

/** A committed version directory as parts every machine agrees on: slug, version and copy name. */
function copyParts(storeDir: string): [string, string, string] | null {
  const name = basename(storeDir);
  const version = basename(dirname(storeDir));
  const slug = basename(dirname(dirname(storeDir)));
  return SLUG_PATTERN.test(slug) && VERSION_PATTERN.test(version) && COPY_NAME.test(name) ? [slug, version, name] : null;
}

/**
 * Ingested versions shared through the bucket. The ingesting machine sends each committed
 * directory to `definitions/<slug>/<version>/<copy>/` before the index points at it; any
 * machine reading a version the index names fetches that prefix once into its own
 * `DATA_DIR/definitions` (a read-through cache: a committed copy never changes) and serves
 * its files from there with the usual confinement checks. Without a bucket (the `fs`
 * driver) every call is a no-op and the index's directory is read as it is.
 */
export interface DefinitionCopies {
  /** Sends a committed directory to the bucket; throws (503 `blob_store_unavailable`) when it cannot. */
  send(storeDir: string): Promise<void>;
  /** This machine's directory of the copy the index names, fetched from the bucket when missing. */
  local(storeDir: string): Promise<string>;
  /** Drops the bucket's copies of a version other than `keepDir`'s (all of them when null); best effort. */
  removeOthers(slug: string, version: string, keepDir: string | null): Promise<void>;
}

export function definitionCopies(blobs: BlobStore, localRoot: string): DefinitionCopies {
  if (blobs.driver === 'fs') {
    return { send: async () => {}, local: async (storeDir) => storeDir, removeOthers: async () => {} };
  }

  async function fetchCopy(prefix: string, target: string): Promise<string> {
    const keys = await fetchReads(() => blobs.list(prefix));
    if (!keys.includes(`${prefix}/${MARKER}`)) throw new Error(`The bucket holds no whole copy at ${prefix}.`);
    const temp = join(dirname(target), `.staging-fetch-${randomUUID().slice(0, 8)}`);
    try {
      await forEachLimited(keys, CONCURRENCY, async (key) => {
        const body = await fetchReads(() => blobs.read(key));
        if (!body) throw new Error(`${key} vanished from the bucket while it was fetched.`);
        const file = join(temp, ...key.slice(prefix.length + 1).split('/'));
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, body);
      });
      // Another process may have fetched it meanwhile: its copy is the same, keep it.
      await rename(temp, target).catch(async (error: NodeJS.ErrnoException) => {
        if (!(await exists(join(target, MARKER)))) throw error;
      });
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
    return target;
  }

  return {
    async send(storeDir) {
      const parts = copyParts(storeDir);
      if (!parts) throw new Error(`Refusing to send ${storeDir}: not a committed version directory.`);
      const prefix = [AREA, ...parts].join('/');
      const files = (await readdir(storeDir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => relative(storeDir, join(entry.parentPath, entry.name)).split(/[\\/]/).join('/'))
        .filter((rel) => rel !== MARKER);
      await forEachLimited(files, CONCURRENCY, async (rel) => blobs.put(`${prefix}/${rel}`, await readFile(join(storeDir, rel))));
      await blobs.put(`${prefix}/${MARKER}`, await readFile(join(storeDir, MARKER)));
    },
    async local(storeDir) {
      const parts = copyParts(storeDir);
      if (!parts) return storeDir;
      const target = join(localRoot, ...parts);
      if (await exists(join(target, MARKER))) return target;
      let pending = fetching.get(target);
      if (!pending) {
        // Registered before anything is awaited, so a second ask at once joins this fetch.
        pending = mkdir(dirname(target), { recursive: true })
          .then(() => fetchCopy([AREA, ...parts].join('/'), target))
          .finally(() => fetching.delete(target));
        fetching.set(target, pending);
      }
      return pending;
    },
    async removeOthers(slug, version, keepDir) {
      const keep = keepDir === null ? null : basename(keepDir);
      const names = new Set((await blobs.list(`${AREA}/${slug}/${version}`).catch(() => [])).map((key) => key.split('/')[3]!));
      for (const name of names) {
        if (name !== keep) await blobs.remove(`${AREA}/${slug}/${version}/${name}`).catch(() => undefined);
      }
    },
  };
}

const exists = (path: string) => stat(path).then(() => true, () => false);
