import type { BlobStoreConfig } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { fsBlobStore } from './fs-blob-store.js';
import { s3BlobStore, type S3Pool } from './s3-blob-store.js';

/**
 * The configured driver: `fs` rooted at DATA_DIR (today's layout), or the bucket. `pool`
 * bounds the sockets this instance holds to the bucket (the `s3` driver; ignored on `fs`).
 */
export function openBlobStore(config: { dataDir: string; blobStore: BlobStoreConfig }, pool?: S3Pool): BlobStore {
  return config.blobStore.driver === 's3' ? s3BlobStore(config.blobStore, pool) : fsBlobStore(config.dataDir);
}
