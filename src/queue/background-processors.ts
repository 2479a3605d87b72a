import { ingestProcessor } from '../catalog/ingest-processor.js';
import { billedRateRefreshProcessor } from '../models/billed-rate-refresh.js';
import { probeProcessor } from '../probes/probe-processor.js';
import { publishProcessor } from '../runs/publish-processor.js';
import { snapshotProcessor } from '../snapshot/snapshot-processor.js';
import type { BackgroundProcessor } from './background-workers.js';

/**
 * Every background queue processor, in one list that the API process (RUN_WORKERS) and
 * `npm run worker` both start, so the two can never host different sets.
 *
 * Run jobs are not here: dispatchers claim them over HTTP (`POST /jobs/next`).
 */
export const BACKGROUND_PROCESSORS: readonly BackgroundProcessor[] = [ingestProcessor, publishProcessor, snapshotProcessor, billedRateRefreshProcessor, probeProcessor];
