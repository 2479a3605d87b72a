import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { BlobStore } from '../../blob/blob-store.js';
import { openBlobStore } from '../../blob/open-blob-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Files every machine of the deployment sees: DATA_DIR (`fs`) or the bucket (`s3`). */
    blobs: BlobStore;
    /**
     * The same files for public streaming (showcase media, snapshot files) over a bucket
     * pool of their own, PUBLIC_BLOB_STREAMS sockets, so slow anonymous readers never hold
     * the sockets of driver uploads and definition fetches. On `fs` it is `blobs` itself.
     */
    publicBlobs: BlobStore;
  }
}

/** The configured blob store and its public pool, closed with the app. */
async function blobStore(app: FastifyInstance) {
  const blobs = openBlobStore(app.config);
  const publicBlobs = blobs.driver === 's3' ? openBlobStore(app.config, { maxSockets: app.config.publicBlobStreams }) : blobs;
  app.decorate('blobs', blobs);
  app.decorate('publicBlobs', publicBlobs);
  app.addHook('onClose', async () => {
    blobs.close();
    if (publicBlobs !== blobs) publicBlobs.close();
  });
}

export default fp(blobStore, { name: 'blob-store', fastify: '5.x', dependencies: ['store'] });
