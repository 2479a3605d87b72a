import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { BlobStore } from '../../blob/blob-store.js';
import { openBlobStore } from '../../blob/open-blob-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Files every machine of the deployment sees: DATA_DIR (`fs`) or the bucket (`s3`). */
    blobs: BlobStore;
  }
}

/** The configured blob store, closed with the app. */
async function blobStore(app: FastifyInstance) {
  const blobs = openBlobStore(app.config);
  app.decorate('blobs', blobs);
  app.addHook('onClose', async () => blobs.close());
}

export default fp(blobStore, { name: 'blob-store', fastify: '5.x', dependencies: ['store'] });
