import type { Readable } from 'node:stream';

/**
 * Where the service keeps files that every machine of a deployment must see: ingested
 * versions and their rendered references, showcase uploads and the published snapshot.
 * Keys are `/`-separated plain segments built from validated parts (see `isBlobKey`);
 * both drivers refuse anything else, so a request path can never name a key by itself.
 */
export interface BlobStore {
  readonly driver: 'fs' | 's3';
  /** Where the blobs live, for logs and errors: a folder or `s3://bucket/prefix`, never a credential. */
  readonly location: string;
  /** Writes a whole small blob; a reader sees the previous content or this one, never a part (a pointer swap). */
  put(key: string, body: Buffer | string): Promise<void>;
  /**
   * Streams `body` to a temporary name without holding it in memory; `commit` moves it to
   * `key` whole, `discard` drops it. A body that fails mid-way leaves nothing behind.
   */
  stage(key: string, body: Readable): Promise<StagedBlob>;
  /** The whole blob, or null when there is none. */
  read(key: string): Promise<Buffer | null>;
  /** The blob as a stream with its size, or null when there is none. */
  open(key: string): Promise<BlobStream | null>;
  /** The blob's size from its metadata, never reading its body; null when there is none. */
  stat(key: string): Promise<{ size: number } | null>;
  exists(key: string): Promise<boolean>;
  /** Every key under `prefix/`, sorted, temporaries excluded. */
  list(prefix: string): Promise<string[]>;
  /**
   * The names of the folders directly under `prefix/` (segments some key continues past),
   * sorted, without listing what they hold: one delimited listing on a bucket.
   */
  folders(prefix: string): Promise<string[]>;
  /** Copies a blob to another key whole (a hard link or a server-side copy: the bytes do not pass through here). */
  copy(from: string, to: string): Promise<void>;
  /** Deletes `prefix` and every key under `prefix/`. */
  remove(prefix: string): Promise<void>;
  close(): void;
}

export interface StagedBlob {
  commit(): Promise<void>;
  discard(): Promise<void>;
}

export interface BlobStream {
  body: Readable;
  size: number;
}

/** Segments drivers write their temporaries under; never a valid key segment. */
export const TEMPORARY_MARK = '.staging-';

// No separators, NUL bytes or backslashes; not `.`/`..`; not a dot-name, which is what the
// drivers' temporaries (and anything else hidden) are called.
const SEGMENT = /^[^./\\\0][^/\\\0]*$/;

/** A key both drivers accept: 1 to 32 plain segments of at most 255 bytes, 1024 bytes in all. */
export function isBlobKey(key: string): boolean {
  if (Buffer.byteLength(key) > 1024) return false;
  const segments = key.split('/');
  return segments.length <= 32 && segments.every((segment) => SEGMENT.test(segment) && Buffer.byteLength(segment) <= 255);
}

/** Joins already validated parts into a key; throws (a programming error, never a request's) when one is not plain. */
export function blobKey(...parts: string[]): string {
  const key = parts.join('/');
  if (!isBlobKey(key)) throw new Error(`Refusing blob key ${JSON.stringify(key.slice(0, 200))}.`);
  return key;
}
