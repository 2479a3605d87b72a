import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { BlobStream } from '../../blob/blob-store.js';
import { tooManyStreams } from '../../errors.js';
import { snapshotStore } from '../../snapshot/snapshot-store.js';

/** What a download refused for the public pool tells its client to wait (s), as the other stream caps do. */
const RETRY_AFTER_SECONDS = 5;

/** A public file, by what can be asked of it: its size alone (HEAD), or its body (GET). */
export interface PublicFile {
  stat(): Promise<{ size: number } | null>;
  open(): Promise<BlobStream | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    publicFiles: {
      /** A blob (a run's showcase file), its body read through the public pool. */
      blob(key: string): PublicFile;
      /** A file of the current snapshot (as the router decoded its path), its body read through the public pool. */
      snapshot(relative: string): PublicFile;
      /**
       * Answers `file` with `headers(size)`, or returns null when there is none (the route's
       * 404). A HEAD reads only metadata and holds no stream. A GET is admitted first: 503
       * `too_many_streams` when this process streams PUBLIC_BLOB_STREAMS public files
       * already, then the caps every long-lived answer counts against (STREAMS_PER_CLIENT,
       * STREAMS_TOTAL); it holds its place until the response closes.
       */
      send(request: FastifyRequest, reply: FastifyReply, file: PublicFile, headers: (size: number) => Record<string, string | number>): Promise<FastifyReply | null>;
      /** Public downloads streaming now (for metrics and tests). */
      readonly open: () => number;
    };
  }
}

/** Public media downloads: a bounded pool of bucket sockets, HEAD from metadata. */
async function publicFiles(app: FastifyInstance) {
  const limit = app.config.publicBlobStreams;
  // Bodies stream over the public pool, one socket per admitted download; metadata (a HEAD,
  // a short request) goes over the main pool, so a full public pool never delays a HEAD.
  const { blobs, publicBlobs } = app;
  const snapshotMeta = snapshotStore(app.config, blobs);
  const snapshotBodies = snapshotStore(app.config, publicBlobs);
  let open = 0;

  const admit = (request: FastifyRequest, reply: FastifyReply) => {
    if (open >= limit) {
      throw tooManyStreams(`The server streams ${open} public files, its limit (PUBLIC_BLOB_STREAMS); retry later.`, RETRY_AFTER_SECONDS);
    }
    app.streams.track(request, reply);
    open += 1;
    reply.raw.once('close', () => {
      open -= 1;
    });
  };

  app.decorate('publicFiles', {
    blob: (key: string): PublicFile => ({ stat: () => blobs.stat(key), open: () => publicBlobs.open(key) }),
    snapshot: (relative: string): PublicFile => ({ stat: () => snapshotMeta.stat(relative), open: () => snapshotBodies.file(relative) }),
    async send(request: FastifyRequest, reply: FastifyReply, file: PublicFile, headers: (size: number) => Record<string, string | number>) {
      if (request.method === 'HEAD') {
        const found = await file.stat();
        // Fastify's HEAD keeps the Content-Length set here only for a stream payload (an
        // empty one): a body-less send would be rewritten to Content-Length: 0.
        return found ? reply.headers(headers(found.size)).send(Readable.from([])) : null;
      }
      admit(request, reply);
      const stored = await file.open();
      return stored ? reply.headers(headers(stored.size)).send(stored.body) : null;
    },
    open: () => open,
  });
}

export default fp(publicFiles, { name: 'public-files', fastify: '5.x', dependencies: ['blob-store', 'streams'] });
