import { ingestProcessor } from '../catalog/ingest-processor.js';
import { staleJobsProcessor } from '../jobs/stale-jobs-processor.js';
import { billedRateRefreshProcessor } from '../models/billed-rate-refresh.js';
import { probeProcessor } from '../probes/probe-processor.js';
import { publishProcessor } from '../runs/publish-processor.js';
import { snapshotProcessor } from '../snapshot/snapshot-processor.js';
import type { BackgroundProcessor } from './background-workers.js';

/**
 * Every background queue processor, in one list that the API process (RUN_WORKERS) and
 * `npm run worker` both start, each for the queues its WORKER_QUEUES lists.
 *
 * Run jobs are not here: dispatchers claim them over HTTP (`POST /jobs/next`); only the
 * sweep that fails the ones whose driver went quiet is.
 */
export const BACKGROUND_PROCESSORS: readonly BackgroundProcessor[] = [
  ingestProcessor,
  publishProcessor,
  snapshotProcessor,
  billedRateRefreshProcessor,
  probeProcessor,
  staleJobsProcessor,
];
