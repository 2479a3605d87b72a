import type { Readable } from 'node:stream';
import { isBlobKey, type BlobStore } from '../blob/blob-store.js';
import type { SnapshotDraft, SnapshotFileStream, SnapshotOutput } from './snapshot-output.js';

/** The blob store's area for the snapshot. */
const AREA = 'snapshot';
/** The pointer object: the current version's name, put last. */
const CURRENT = `${AREA}/current`;
const VERSIONS = `${AREA}/versions`;
const VERSION_NAME = /^[0-9a-z]+-[0-9a-f]{8}$/;

/**
 * The snapshot in a bucket (the `s3` blob driver): each version under
 * `snapshot/versions/<name>/`, and `snapshot/current` naming the current one. The pointer
 * is put only once the version is whole, and a PUT replaces an object atomically, so a
 * reader (any API process, or a static host that follows the pointer) never sees half a
 * snapshot. Showcase media is copied inside the bucket.
 */
export function bucketSnapshot(blobs: BlobStore): SnapshotOutput {
  const keyOf = (name: string, rel: string) => `${VERSIONS}/${name}/${rel}`;
  return {
    async begin(name): Promise<SnapshotDraft> {
      return {
        writeText: (rel, text) => blobs.put(keyOf(name, rel), text),
        async writeStream(rel, body: Readable) {
          const staged = await blobs.stage(keyOf(name, rel), body);
          await staged.commit();
        },
        carry: (blobKey, rel) => blobs.copy(blobKey, keyOf(name, rel)),
        carryFrom: (from, rel) => blobs.copy(keyOf(from, rel), keyOf(name, rel)),
      };
    },
    async publish(name) {
      const previous = (await blobs.read(CURRENT))?.toString() ?? null;
      await blobs.put(CURRENT, name);
      return previous;
    },
    async current() {
      const name = (await blobs.read(CURRENT))?.toString() ?? '';
      return VERSION_NAME.test(name) ? name : null;
    },
    readText: async (name, rel) => (await blobs.read(keyOf(name, rel)))?.toString() ?? null,
    discard: (name) => blobs.remove(`${VERSIONS}/${name}`),
    // One delimited listing names the versions; listing every object of every version to
    // find them cost a request per thousand files and failed whole on any one page.
    versions: () => blobs.folders(VERSIONS),
  };
}

/** The key a request path names inside the current bucket snapshot, or null (no pointer yet, or not a plain key). */
async function bucketSnapshotKey(blobs: BlobStore, relative: string): Promise<string | null> {
  // The version comes from the pointer and is checked; the path must be plain segments, so
  // the key stays inside that version whatever the request says.
  const name = (await blobs.read(CURRENT))?.toString() ?? '';
  return VERSION_NAME.test(name) && isBlobKey(relative) ? `${VERSIONS}/${name}/${relative}` : null;
}

/** The file a request path names inside the current bucket snapshot, or null (no pointer yet, missing, or not a plain key). */
export async function bucketSnapshotFile(blobs: BlobStore, relative: string): Promise<SnapshotFileStream | null> {
  const key = await bucketSnapshotKey(blobs, relative);
  return key ? blobs.open(key) : null;
}

/** That file's size from its metadata (a HEAD), or null. */
export async function bucketSnapshotStat(blobs: BlobStore, relative: string): Promise<{ size: number } | null> {
  const key = await bucketSnapshotKey(blobs, relative);
  return key ? blobs.stat(key) : null;
}
