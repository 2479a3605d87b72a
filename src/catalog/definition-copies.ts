import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import type { BlobStore } from '../blob/blob-store.js';
import type { CatalogIndex } from './catalog-index.js';
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
  /** True when this machine keeps copies fetched from the bucket (the `s3` driver). */
  readonly fetches: boolean;
  /** Sends a committed directory to the bucket; throws (503 `blob_store_unavailable`) when it cannot. */
  send(storeDir: string): Promise<void>;
  /** This machine's directory of the copy the index names, fetched from the bucket when missing. */
  local(storeDir: string): Promise<string>;
  /** Drops the bucket's copies of a version other than `keepDir`'s (all of them when null); best effort. */
  removeOthers(slug: string, version: string, keepDir: string | null): Promise<void>;
  /**
   * Removes this machine's copies the index no longer names (`named`: every indexed store
   * directory), so a machine that does not ingest does not keep a full copy per re-ingest
   * until its disk fills. A copy goes only once two sweeps in a row found it unnamed: a
   * request that resolved it just before the index moved on has a sweep's interval to finish,
   * and a copy committed here an instant before the index names it is kept. Returns the
   * directories removed.
   */
  sweep(named: readonly string[]): Promise<string[]>;
}

/** How often each process sweeps its fetched copies (see `DefinitionCopies.sweep`). */
export const COPY_SWEEP_MS = 5 * 60_000;

export function definitionCopies(blobs: BlobStore, localRoot: string): DefinitionCopies {
  if (blobs.driver === 'fs') {
    return { fetches: false, send: async () => {}, local: async (storeDir) => storeDir, removeOthers: async () => {}, sweep: async () => [] };
  }
  /** Copies found unnamed by the previous sweep: the next one that finds them so removes them. */
  let unnamedBefore = new Set<string>();

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
    fetches: true,
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
    async sweep(named) {
      const keep = new Set(named.flatMap((dir) => {
        const parts = copyParts(dir);
        return parts ? [join(localRoot, ...parts)] : [];
      }));
      const unnamed = new Set<string>();
      const removed: string[] = [];
      for (const slug of await folders(localRoot)) {
        for (const version of await folders(join(localRoot, slug))) {
          const parent = join(localRoot, slug, version);
          for (const name of await folders(parent)) {
            const dir = join(parent, name);
            // Staging and half-fetched directories are their writers' to remove.
            if (!COPY_NAME.test(name) || keep.has(dir) || fetching.has(dir)) continue;
            if (!unnamedBefore.has(dir)) {
              unnamed.add(dir);
              continue;
            }
            await rm(dir, { recursive: true, force: true });
            removed.push(dir);
          }
          await rmdir(parent).catch(() => undefined);
        }
        await rmdir(join(localRoot, slug)).catch(() => undefined);
      }
      unnamedBefore = unnamed;
      return removed;
    },
  };
}

/**
 * Sweeps `copies` against `index`'s directories every `everyMs` until the returned stop is
 * called. A sweep that fails (the store down) is reported and the next one tries again.
 */
export function sweepCopiesEvery(
  copies: DefinitionCopies,
  index: Pick<CatalogIndex, 'all'>,
  log: { warn(fields: object, message: string): void },
  everyMs = COPY_SWEEP_MS,
): () => void {
  if (!copies.fetches) return () => {};
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void index
      .all()
      .then((versions) => copies.sweep(versions.map((version) => version.storeDir)))
      .catch((error: unknown) => log.warn({ err: error }, 'definition copies: a sweep of the copies the index no longer names failed; the next one tries again'))
      .finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Names of the folders in `dir`; none when it does not exist. */
async function folders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

const exists = (path: string) => stat(path).then(() => true, () => false);
