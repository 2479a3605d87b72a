import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { observeBilledRate } from '../../models/observe-billed-rate.js';
import { bullConnection } from '../../redis/managed-redis.js';
import { runListing, type RunListing } from '../../runs/list-runs.js';
import { runGrades, type RunGrades } from '../../runs/run-grades.js';
import { runRecords, runsRecordSink, type RunRecords, type RunRecordSink } from '../../runs/run-record-sink.js';
import { runRows, type RunRows } from '../../runs/run-rows.js';
import { createSnapshotQueue, requestSnapshotRefresh } from '../../snapshot/snapshot-queue.js';

declare module 'fastify' {
  interface FastifyInstance {
    runs: {
      rows: RunRows;
      grades: RunGrades;
      listing: RunListing;
      records: RunRecords;
      /** What the run-job queue hands terminal reports to. */
      sink: RunRecordSink;
      requestSnapshot(): Promise<void>;
    };
  }
}

/** Stored runs: the record store, grades, listings and the sink the run-job queue writes through. */
async function runs(app: FastifyInstance) {
  const { config, db } = app;
  const snapshotQueue = createSnapshotQueue(bullConnection(config.redisUrl!), config.redisPrefix);
  const rows = runRows(db);
  const grades = runGrades({ db, rows, index: app.catalog.index, versions: app.catalog.versions });
  const requestSnapshot = () => requestSnapshotRefresh(snapshotQueue);
  const records = runRecords({
    rows,
    grades,
    listPriceOf: (modelId) => app.models.get(modelId)?.listPrice ?? null,
    onCompleted: (modelId) => observeBilledRate(app.models, app.router, modelId, 'run-completion'),
    onPublishedChanged: requestSnapshot,
    onError: (error, context) => app.log.warn({ err: error }, `runs: ${context} failed`),
  });

  app.decorate('runs', { rows, grades, listing: runListing(db), records, sink: runsRecordSink(records), requestSnapshot });
  app.addHook('onClose', async () => {
    await snapshotQueue.close();
  });
}

export default fp(runs, { name: 'runs', fastify: '5.x', dependencies: ['store', 'catalog', 'models'] });
