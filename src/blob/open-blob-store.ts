import type { BlobStoreConfig } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { fsBlobStore } from './fs-blob-store.js';
import { s3BlobStore } from './s3-blob-store.js';

/** The configured driver: `fs` rooted at DATA_DIR (today's layout), or the bucket. */
export function openBlobStore(config: { dataDir: string; blobStore: BlobStoreConfig }): BlobStore {
  return config.blobStore.driver === 's3' ? s3BlobStore(config.blobStore) : fsBlobStore(config.dataDir);
}
