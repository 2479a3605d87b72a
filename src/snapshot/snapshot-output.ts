import type { Readable } from 'node:stream';

/**
 * Where snapshot versions are written and which one readers see: a folder with a link
 * swapped by rename (`folder-snapshot.ts`, the `fs` blob driver) or a bucket prefix with a
 * pointer object put last (`bucket-snapshot.ts`). Either way a reader sees one whole version.
 */
export interface SnapshotOutput {
  /** Starts writing the version `name` (unique, sorting by creation time). */
  begin(name: string): Promise<SnapshotDraft>;
  /** Points readers at `name` in one atomic step; answers the version it pointed at before, if any. */
  publish(name: string): Promise<string | null>;
  /** Removes an unpublished or replaced version. */
  discard(name: string): Promise<void>;
  /** Every version's name, sorted (legacy ones included). */
  versions(): Promise<string[]>;
  /** The version readers see now, or null when none is published yet. */
  current(): Promise<string | null>;
  /** A small file of a published version (its `manifest.json`), or null when it has none. */
  readText(name: string, rel: string): Promise<string | null>;
}

/** One version being written; `rel` is a path under the snapshot root (`runs/<id>.json`). */
export interface SnapshotDraft {
  writeText(rel: string, text: string): Promise<void>;
  /** Streams a file in (`runs.json`, too large to build in memory). */
  writeStream(rel: string, body: Readable): Promise<void>;
  /** Carries an uploaded blob (`run-media/<id>/showcase/<file>`) into the version at `rel`. */
  carry(blobKey: string, rel: string): Promise<void>;
  /** Carries version `from`'s file at `rel` into this one unchanged (a hard link, or a copy inside the bucket). */
  carryFrom(from: string, rel: string): Promise<void>;
}

/** A file of the current snapshot, ready to send. */
export interface SnapshotFileStream {
  body: Readable;
  size: number;
}
