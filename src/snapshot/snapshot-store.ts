import type { BlobStore } from '../blob/blob-store.js';
import { bucketSnapshot, bucketSnapshotFile } from './bucket-snapshot.js';
import { folderSnapshot, folderSnapshotFile } from './folder-snapshot.js';
import type { SnapshotFileStream, SnapshotOutput } from './snapshot-output.js';

export interface SnapshotStore {
  output: SnapshotOutput;
  /** The current snapshot's file at `relative` (as the router decoded it), or null. */
  file(relative: string): Promise<SnapshotFileStream | null>;
}

/**
 * Where the snapshot lives: SNAPSHOT_DIR beside the `fs` blob driver (what a web server on
 * the machine serves), the bucket's `snapshot/` prefix with the `s3` driver (what every
 * machine, and a static host, reads).
 */
export function snapshotStore(config: { dataDir: string; snapshotDir: string }, blobs: BlobStore): SnapshotStore {
  if (blobs.driver === 's3') return { output: bucketSnapshot(blobs), file: (relative) => bucketSnapshotFile(blobs, relative) };
  return { output: folderSnapshot(config.snapshotDir, config.dataDir), file: (relative) => folderSnapshotFile(config.snapshotDir, relative) };
}
