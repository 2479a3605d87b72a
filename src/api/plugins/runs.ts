import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jobsTable } from '../../db/jobs-table.js';
import { showcaseUploadsTable } from '../../db/showcase-uploads-table.js';
import { observeBilledRate } from '../../models/observe-billed-rate.js';
import { closeQueues, failFastConnection, queueProducerConnection, reportOutages } from '../../redis/redis-connections.js';
import { artifactService, type ArtifactService } from '../../runs/artifact-service.js';
import { runListing, type RunListing } from '../../runs/list-runs.js';
import { publishJobs, type PublishJobs } from '../../runs/publish-jobs.js';
import { followPublishLive, type PublishLine } from '../../runs/publish-live.js';
import { createPublishQueue, type PublishPayload } from '../../runs/publish-run.js';
import { runGrades, type RunGrades } from '../../runs/run-grades.js';
import { runRecords, type RunRecords } from '../../runs/run-record-sink.js';
import { runRows, type RunRows } from '../../runs/run-rows.js';
import { unreadableRuns } from '../../runs/unreadable-runs.js';
import { showcaseUploads, type ShowcaseUploads } from '../../runs/upload-showcase.js';
import { createSnapshotQueue, requestSnapshotRefresh } from '../../snapshot/snapshot-queue.js';
import { snapshotLock } from '../../snapshot/snapshot-lock.js';
import { snapshotStore, type SnapshotStore } from '../../snapshot/snapshot-store.js';
import { snapshotWriter, type SnapshotWriter } from '../../snapshot/write-snapshot.js';
import type { Queue } from 'bullmq';

declare module 'fastify' {
  interface FastifyInstance {
    runs: {
      rows: RunRows;
      grades: RunGrades;
      listing: RunListing;
      /** Also what the run-job queue hands terminal reports to. */
      records: RunRecords;
      publishJobs: PublishJobs;
      publishQueue: Queue<PublishPayload>;
      artifacts: ArtifactService;
      snapshot: SnapshotWriter;
      /** Where the snapshot is written and read back from. */
      snapshotFiles: SnapshotStore;
      unreadable: ReturnType<typeof unreadableRuns>;
      uploadShowcase: ShowcaseUploads;
      requestSnapshot(): Promise<void>;
      followPublish(publishJobId: string, signal: AbortSignal): AsyncGenerator<PublishLine | null>;
    };
  }
}

/**
 * Stored runs: the record store and its sink, grades, listings, the publish queue and the
 * snapshot writer. The publish and snapshot processors are background workers.
 */
async function runs(app: FastifyInstance) {
  const { config, store } = app;
  const connection = queueProducerConnection(config.redisUrl);
  const prefix = config.redisPrefix;
  const snapshotQueue = createSnapshotQueue(connection, prefix);
  const publishQueue = createPublishQueue(connection, prefix);
  reportOutages(snapshotQueue, 'snapshot-queue', app.log);
  reportOutages(publishQueue, 'publish-queue', app.log);
  const redis = await failFastConnection(config.redisUrl, 'runs', app.log);
  const rows = runRows(store);
  const grades = runGrades({ store, rows, index: app.catalog.index, versions: app.catalog.versions });
  const jobs = publishJobs(store);
  const artifacts = artifactService({ url: config.artifactsUrl, serviceToken: config.artifactsServiceToken });
  const warn = (message: string) => app.log.warn(`runs: ${message}`);
  const onError = (error: unknown, context: string) => app.log.warn({ err: error }, `runs: ${context} failed`);
  const requestSnapshot = () => requestSnapshotRefresh(snapshotQueue);
  const records = runRecords({
    rows,
    grades,
    listPriceOf: async (modelId) => (await app.models.get(modelId))?.listPrice ?? null,
    onCompleted: (modelId) => observeBilledRate(app.models, app.router, modelId, 'run-completion'),
    onPublishedChanged: requestSnapshot,
    onError,
  });
  const { blobs } = app;
  const snapshotFiles = snapshotStore(config, blobs);
  const snapshot = snapshotWriter({
    store, rows, grades, blobs, output: snapshotFiles.output, deployHook: config.snapshotDeployHook, onWarning: warn, exclusive: snapshotLock(redis, prefix),
  });

  app.decorate('runs', {
    rows,
    grades,
    listing: runListing(store),
    records,
    publishJobs: jobs,
    publishQueue,
    artifacts,
    snapshot,
    snapshotFiles,
    unreadable: unreadableRuns(store),
    uploadShowcase: showcaseUploads({
      rows,
      jobs: jobsTable(app.store),
      uploads: showcaseUploadsTable(store),
      blobs,
      maxBytes: config.showcaseUploadMaxBytes,
      jobBounds: { files: config.showcaseJobMaxFiles, bytes: config.showcaseJobMaxBytes },
      requestSnapshot,
    }),
    requestSnapshot,
    followPublish: (publishJobId: string, signal: AbortSignal) =>
      followPublishLive({ redis, tail: app.streams.tail, signal }, prefix, publishJobId, async () => {
        const job = await jobs.get(publishJobId);
        return job ? jobs.resultOf(job) : { type: 'result', state: 'failed', detail: 'The publish job no longer exists.' };
      }),
  });
  app.addHook('onClose', async () => {
    await closeQueues(publishQueue, snapshotQueue);
    redis.disconnect();
  });
}

export default fp(runs, { name: 'runs', fastify: '5.x', dependencies: ['store', 'blob-store', 'catalog', 'models', 'streams'] });
