import type { BlobStore } from '../blob/blob-store.js';
import { bucketSnapshot, bucketSnapshotFile, bucketSnapshotStat } from './bucket-snapshot.js';
import { folderSnapshot, folderSnapshotFile, folderSnapshotStat } from './folder-snapshot.js';
import type { SnapshotFileStream, SnapshotOutput } from './snapshot-output.js';

export interface SnapshotStore {
  output: SnapshotOutput;
  /** The current snapshot's file at `relative` (as the router decoded it), or null. */
  file(relative: string): Promise<SnapshotFileStream | null>;
  /** That file's size, read from its metadata only (a HEAD), or null. */
  stat(relative: string): Promise<{ size: number } | null>;
}

/**
 * Where the snapshot lives: SNAPSHOT_DIR beside the `fs` blob driver (what a web server on
 * the machine serves), the bucket's `snapshot/` prefix with the `s3` driver (what every
 * machine, and a static host, reads).
 */
export function snapshotStore(config: { dataDir: string; snapshotDir: string }, blobs: BlobStore): SnapshotStore {
  if (blobs.driver === 's3') {
    return { output: bucketSnapshot(blobs), file: (relative) => bucketSnapshotFile(blobs, relative), stat: (relative) => bucketSnapshotStat(blobs, relative) };
  }
  return {
    output: folderSnapshot(config.snapshotDir, config.dataDir),
    file: (relative) => folderSnapshotFile(config.snapshotDir, relative),
    stat: (relative) => folderSnapshotStat(config.snapshotDir, relative),
  };
}
