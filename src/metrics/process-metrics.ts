import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The metrics a process records as things happen, whichever process it is (the API or an
 * `npm run worker`): one registry per process, with Node's own process metrics beside them.
 * Figures read from the store or the queues at scrape time are the API's, in
 * `deploymentCollectors` (src/metrics/deployment-metrics.ts).
 */
export const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry, prefix: 'evb_' });

const SECONDS_FAST = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export const httpRequestDuration = new Histogram({
  name: 'evb_http_request_duration_seconds',
  help: 'HTTP requests by route pattern, method and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: SECONDS_FAST,
  registers: [processRegistry],
});

export const backgroundJobs = new Counter({
  name: 'evb_background_jobs_total',
  help: 'Background jobs this process ran, by queue (ingest scans are queue="ingest") and outcome (completed or failed).',
  labelNames: ['queue', 'outcome'] as const,
  registers: [processRegistry],
});

export const backgroundJobDuration = new Histogram({
  name: 'evb_background_job_duration_seconds',
  help: 'Duration of the background jobs this process ran, by queue (ingest scans are queue="ingest").',
  labelNames: ['queue'] as const,
  buckets: [0.01, 0.05, 0.25, 1, 5, 15, 60, 180, 600],
  registers: [processRegistry],
});

export const renders = new Counter({
  name: 'evb_renders_total',
  help: 'Mockup renders by outcome (rendered or failed).',
  labelNames: ['outcome'] as const,
  registers: [processRegistry],
});

export const renderDuration = new Histogram({
  name: 'evb_render_duration_seconds',
  help: 'Time from a render being queued to its PNG written, waiting for a tab included.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [processRegistry],
});

export const browserRestarts = new Counter({
  name: 'evb_browser_restarts_total',
  help: 'Chromium browsers a render thread launched again after its first (a crash or a killed browser).',
  registers: [processRegistry],
});

export const redisReconnects = new Counter({
  name: 'evb_redis_reconnects_total',
  help: 'Reconnection attempts of this process\'s Redis connections.',
  labelNames: ['connection'] as const,
  registers: [processRegistry],
});
