import { pipeline, Transform, type Readable } from 'node:stream';
import type { BlobStore } from '../blob/blob-store.js';
import { contentTypeFor } from '../catalog/content-type-for.js';
import { mediaKindOf } from '../catalog/media-kind.js';
import type { JobsTable } from '../db/jobs-table.js';
import type { ShowcaseJobBounds, ShowcaseUploadsTable } from '../db/showcase-uploads-table.js';
import { conflict, payloadTooLarge, unprocessable, unsupportedMediaType } from '../errors.js';
import { formatBytes } from '../http/read-capped-body.js';
import { isTerminal } from '../queue/run-queue.js';
import { refuseForeignJob } from './run-ownership.js';
import type { RunRows } from './run-rows.js';
import { showcaseKey } from './showcase-path.js';

export interface ShowcaseUploadDeps {
  rows: Pick<RunRows, 'owner' | 'get'>;
  jobs: Pick<JobsTable, 'get'>;
  uploads: ShowcaseUploadsTable;
  blobs: BlobStore;
  /** SHOWCASE_UPLOAD_MAX_MIB in bytes. */
  maxBytes: number;
  /** SHOWCASE_JOB_MAX_FILES and SHOWCASE_JOB_MAX_MIB (in bytes): all one job may upload. */
  jobBounds: ShowcaseJobBounds;
  requestSnapshot(): Promise<void>;
}

export interface ShowcaseUpload {
  runId: string;
  file: string;
  /** `x-svc-job-id`: the job the driver runs, whose per-job token the route checked. */
  jobId: string;
  contentLength: number | undefined;
  /** Undefined when the request had no body at all. */
  body: Readable | undefined;
}

export interface StoredShowcase {
  id: string;
  file: string;
  kind: 'image' | 'video';
  contentType: string;
  bytes: number;
  /** False when an earlier upload of the same name was replaced. */
  created: boolean;
}

class TooLarge extends Error {}

/**
 * `PUT /runs/{id}/showcase/{file}`: a driver stores one image or video of the run it is
 * producing. Its route checks the per-job token against `x-svc-job-id` (a run id is not a
 * job id). A job uploads for one run only: the first upload binds the run id to the job
 * (and a finished job's is the run it produced), so it can neither plant media in a run
 * another job will report nor spread over many run ids; and all it uploads is bounded
 * (`jobBounds`), every upload counting, a replaced file included. The bytes stream to a
 * temporary name in the blob store and are moved into place once counted, so a reader
 * never sees half a file and no upload is held in memory.
 */
export function showcaseUploads(deps: ShowcaseUploadDeps) {
  return async function upload(request: ShowcaseUpload): Promise<StoredShowcase> {
    const { runId, file, jobId } = request;

    const key = showcaseKey(runId, file);
    if (!key) {
      throw unprocessable(
        `file "${file.slice(0, 200)}" must be one plain file name of at most 200 letters, digits, ".", "_" and "-", starting with a letter or digit, ` +
          `for a run id that is one plain name (no "/", not starting with ".").`,
      );
    }
    const kind = mediaKindOf(file);
    if (kind !== 'image' && kind !== 'video') {
      throw unsupportedMediaType(`file "${file}" is not showcase media: its extension must name an image (png, jpg, gif, webp, avif, svg) or a video (mp4, webm, mov).`);
    }

    const job = (await deps.jobs.get(jobId))!;
    if (isTerminal(job.state) && job.recordId !== runId) {
      throw unprocessable(`Job ${jobId} is ${job.state}${job.recordId ? ` and produced run ${job.recordId}` : ''}; it can no longer upload media for run ${runId}.`);
    }
    const owner = await deps.rows.owner(runId);
    if (owner) refuseForeignJob(runId, owner.jobId, jobId, 'upload its media');
    if (request.contentLength !== undefined && request.contentLength > deps.maxBytes) throw tooLarge(file, deps.maxBytes);
    if (!request.body) throw emptyBody(file);
    const usage = await deps.uploads.bind(jobId, runId);
    // The owner check above sees a binding or a run already there; this one, one made meanwhile.
    if ('otherJob' in usage) throw conflict(`Run ${runId} belongs to ${usage.otherJob === null ? 'no job' : `job ${usage.otherJob}`}; job ${jobId} cannot upload its media.`);
    if (usage.runId !== runId) {
      throw conflict(`Job ${jobId} uploads showcase media for run ${usage.runId} (its first upload named it); it cannot upload for run ${runId}.`);
    }
    const budget = Math.min(deps.maxBytes, deps.jobBounds.bytes - usage.bytes);
    if (usage.files >= deps.jobBounds.files || (request.contentLength ?? 0) > budget) throw jobSpent(jobId, deps.jobBounds);

    let bytes = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        // Counting what arrives is the real cap: a chunked body announces no length.
        done(bytes > budget ? new TooLarge() : null, chunk);
      },
    });
    // The callback form hands back the counted stream and fails it when the request's body fails.
    const counted = pipeline(request.body, cap, () => {});
    try {
      const staged = await deps.blobs.stage(key, counted);
      try {
        if (bytes === 0) throw emptyBody(file);
        // Counted once whole, atomically: concurrent uploads of one job cannot pass its bounds together.
        if (!(await deps.uploads.charge(jobId, bytes, deps.jobBounds))) throw jobSpent(jobId, deps.jobBounds);
        const created = !(await deps.blobs.exists(key));
        await staged.commit();
        if ((await deps.rows.get(runId))?.published === 1) await deps.requestSnapshot();
        return { id: runId, file, kind, contentType: contentTypeFor(file), bytes, created };
      } catch (error) {
        await staged.discard().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      if (!(error instanceof TooLarge)) throw error;
      throw bytes > deps.maxBytes ? tooLarge(file, deps.maxBytes) : jobSpent(jobId, deps.jobBounds);
    }
  };
}

const emptyBody = (file: string) => unprocessable(`The body of ${file} is empty; send the file's bytes.`);
const tooLarge = (file: string, maxBytes: number) =>
  payloadTooLarge(`${file} is larger than the showcase upload limit of ${formatBytes(maxBytes)} (SHOWCASE_UPLOAD_MAX_MIB).`);

const jobSpent = (jobId: string, bounds: ShowcaseJobBounds) =>
  payloadTooLarge(
    `Job ${jobId} may upload at most ${bounds.files} showcase files and ${formatBytes(bounds.bytes)} in all ` +
      '(SHOWCASE_JOB_MAX_FILES, SHOWCASE_JOB_MAX_MIB); this upload would pass that.',
  );

export type ShowcaseUploads = ReturnType<typeof showcaseUploads>;
