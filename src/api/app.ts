import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { tokenVerifier } from '../accounts/verify-token.js';
import type { ServiceConfig, TrustProxy } from '../config.js';
import type { BackendStore } from '../db/dialect.js';
import { jobsTable } from '../db/jobs-table.js';
import type { Database } from '../db/open-database.js';
import { SECOND } from '../time.js';
import { shuttingDown } from '../errors.js';
import authenticate from './plugins/authenticate.js';
import backgroundWorkers from './plugins/background-workers.js';
import blobStore from './plugins/blob-store.js';
import catalog from './plugins/catalog.js';
import coverage from './plugins/coverage.js';
import crossOrigin from '../http/cross-origin.js';
import errorEnvelope, { envelopeServerOptions } from '../http/error-envelope.js';
import jsonBody from '../http/json-body.js';
import ladders from './plugins/ladders.js';
import metrics from './plugins/metrics.js';
import models from './plugins/models.js';
import openapi from './plugins/openapi.js';
import operations from './plugins/operations.js';
import probes from './plugins/probes.js';
import publicFiles from './plugins/public-files.js';
import queueDashboard from './plugins/queue-dashboard.js';
import runJobs, { type RunJobsOptions } from './plugins/run-jobs.js';
import runs from './plugins/runs.js';
import scheduleOwners from './plugins/schedule-owners.js';
import statsReader from './plugins/stats-reader.js';
import store from './plugins/store.js';
import streams from './plugins/streams.js';
import coverageRoutes from './routes/coverage/index.js';
import ggRoutes from './routes/gg/index.js';
import harnessConfigRoutes from './routes/harness-config/index.js';
import healthRoutes from './routes/health/index.js';
import ingestRoutes from './routes/ingest/index.js';
import ladderRoutes from './routes/ladders/index.js';
import jobsRoutes from './routes/jobs/index.js';
import modelRoutes from './routes/models/index.js';
import probeRoutes from './routes/probes/index.js';
import notificationRoutes from './routes/notifications/index.js';
import publishJobRoutes from './routes/publish-jobs/index.js';
import runRoutes from './routes/runs/index.js';
import schemaRoutes from './routes/schemas/index.js';
import snapshotRoutes from './routes/snapshot/index.js';
import statsRoutes from './routes/stats/index.js';
import statusRoutes from './routes/status/index.js';
import testCaseRoutes from './routes/test-cases/index.js';
import { requestValidators } from '../http/request-validators.js';
import { installDrain } from './drain-connections.js';

export interface AppOptions {
  /** `authUrl` and `redisUrl` must be resolved (the bundled services' addresses when the deployment names none). */
  config: ServiceConfig;
  /** The SQLite handle: the store when `store` is not given; null when the store is PostgreSQL. */
  db: Database | null;
  /** The store layer (src/db/open-store.ts); default: Kysely over `db`. The caller owns and closes it. */
  store?: BackendStore;
  /**
   * Other areas' modules the run queue integrates through (catalog, model rule, record
   * store) and stream timings; tests pass their own, the server the defaults.
   */
  jobs?: RunJobsOptions;
  /** Sees each route as it is registered (the route fuzzer enumerates them this way). */
  onRoute?: (route: RouteOptions) => void;
  /** Where the request log goes (default standard output); tests read it. */
  logStream?: { write(line: string): void };
}

/** The whole HTTP app as one plugin: the server and the tests build the same thing. */
async function app(instance: FastifyInstance, { config, db, store: given, jobs = {} }: AppOptions) {
  await instance.register(errorEnvelope);
  await instance.register(jsonBody);
  await instance.register(crossOrigin, { origins: config.corsOrigins });
  await instance.register(openapi);
  await instance.register(store, { config, db, ...(given ? { store: given } : {}) });
  await instance.register(blobStore);
  await instance.register(statsReader);
  await instance.register(streams);
  await instance.register(publicFiles);
  const tokenHashes = jobsTable(instance.store);
  await instance.register(authenticate, {
    verifier: tokenVerifier({ authUrl: config.authUrl, cacheMs: config.authCacheMs }),
    serviceToken: config.serviceToken,
    operators: config.operatorAccounts,
    // A claim is in Redis first and its row is written just behind its answer
    // (dispatch-recorder.ts), so a driver's report is checked against what this process has not
    // written yet, then Redis, with no store round trip; the store answers only when Redis has
    // no token for the job (unclaimed, expired, or lost to a Redis restart) and tells an
    // unknown job from an unclaimed one.
    jobTokenHash: async (jobId) =>
      instance.runJobs.dispatches.pendingTokenHash(jobId) ??
      (await instance.runJobs.queue.tokenHash(jobId)) ??
      (await tokenHashes.tokenHash(jobId)),
  });
  await instance.register(models);
  await instance.register(probes);
  await instance.register(catalog);
  await instance.register(runs);
  await instance.register(runJobs, jobs);
  await instance.register(scheduleOwners);
  await instance.register(coverage);
  await instance.register(operations);
  await instance.register(metrics);
  await instance.register(ladders);
  if (config.runWorkers) await instance.register(backgroundWorkers);
  await instance.register(healthRoutes);
  await instance.register(modelRoutes);
  await instance.register(probeRoutes);
  await instance.register(ingestRoutes);
  await instance.register(testCaseRoutes);
  await instance.register(jobsRoutes);
  await instance.register(notificationRoutes);
  await instance.register(ggRoutes);
  await instance.register(harnessConfigRoutes);
  await instance.register(runRoutes);
  await instance.register(publishJobRoutes);
  await instance.register(statsRoutes);
  await instance.register(snapshotRoutes);
  await instance.register(coverageRoutes);
  await instance.register(ladderRoutes);
  await instance.register(statusRoutes);
  await instance.register(schemaRoutes);
  if (config.queueDashboard) await instance.register(queueDashboard);
}

export default fp(app, { name: 'app', fastify: '5.x' });

/**
 * Request ids (logs, and a server fault's message) as `<process prefix>-<count>`: a random
 * prefix per app keeps them apart across processes and restarts, and a counter costs a
 * request nothing, where a random UUID each was a claim's costliest id.
 */
function requestIds(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let count = 0;
  return () => `${prefix}-${(count += 1).toString(36)}`;
}

/**
 * How long a connection may take to send its request and to take its answer: a request
 * (headers and body) not received whole within `requestTimeoutMs` is answered 408 in the
 * envelope (see error-envelope.ts) and closed; a connection on which nothing moved for
 * `writeStallTimeoutMs` (Node gives a write that made some progress a second period) is
 * closed when an answer waits that its client has not taken (a console, follower or large
 * answer nobody reads), and left alone when it is only idle (a request being worked on, a
 * keep-alive socket between requests).
 */
function connectionBounds({ requestTimeoutMs, writeStallTimeoutMs }: Pick<ServiceConfig, 'requestTimeoutMs' | 'writeStallTimeoutMs'>) {
  return {
    requestTimeout: requestTimeoutMs,
    connectionTimeout: writeStallTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(60 * SECOND, requestTimeoutMs),
      // Node checks for late requests this often (default 30 s): a timeout is kept to within a quarter of itself.
      connectionsCheckingInterval: Math.min(30 * SECOND, Math.max(100, Math.round(requestTimeoutMs / 4))),
    },
  };
}

/**
 * While a response is under way its socket's timeout is this one's to answer (Node closes
 * the socket only when nobody listens): closed when written data waits that the client has
 * not taken, kept when the request is only being worked on (a scan answered after minutes)
 * or its body is still arriving (REQUEST_TIMEOUT_SECONDS bounds that). Between requests
 * Node's own keep-alive timeout applies.
 */
function closeWhenStalled(_request: IncomingMessage, response: ServerResponse): void {
  response.on('timeout', closeIfStalled);
}

function closeIfStalled(socket: Socket): void {
  if (socket.writableLength > 0) socket.destroy();
}

/**
 * Fastify's close ends the keep-alive connections idle when it starts; one whose answer is
 * sent after that (a request the shutdown itself ends with 503, a scan that reports just
 * then) stays open until the keep-alive timeout, and holds the close for up to 72 s. From
 * the start of a drain (`installDrain`), and once the close has begun, every answer closes
 * its connection.
 */
function closeConnectionsOnceClosing(instance: FastifyInstance): void {
  let closing = false;
  const drain = installDrain(instance);
  instance.addHook('preClose', async () => {
    closing = true;
  });
  // Fastify's own refusal (return503OnClosing) answers outside our envelope and without
  // Retry-After; this one says what to do. The callback form: no promise per request.
  instance.addHook('onRequest', (_request, _reply, done) => done(closing ? shuttingDown() : undefined));
  instance.addHook('onSend', (_request, reply, payload, done) => {
    if (closing || drain.started) reply.header('connection', 'close');
    done(null, payload);
  });
}

/** Fastify's `trustProxy` option; a hop count as the function Fastify would build from it (its types omit numbers). */
function trustProxyOption(trustProxy: TrustProxy): Pick<FastifyServerOptions, 'trustProxy'> {
  if (typeof trustProxy === 'number') return { trustProxy: (_address: string, hop: number) => hop < trustProxy };
  return { trustProxy };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const instance = Fastify({
    ...connectionBounds(options.config),
    logger: options.config.logLevel === 'silent' ? false : { level: options.config.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    genReqId: requestIds(),
    requestIdHeader: 'x-request-id',
    // Per-client limits and logs see the client a trusted balancer names (TRUST_PROXY).
    ...trustProxyOption(options.config.trustProxy),
    return503OnClosing: false,
    // Boot's reconcile reads every in-flight job (11 s at a million queued, 47 s when Redis
    // came back empty and all are queued again), past Fastify's 10 s per plugin. A start that
    // hangs is caught by what waits for it: the supervisor kills one that reports no progress
    // for 30 s (src/runtime/node-child.ts), and the reconcile reports each page.
    pluginTimeout: 0,
    schemaController: { compilersFactory: { buildValidator: requestValidators } },
    ...envelopeServerOptions,
  }).withTypeProvider<TypeBoxTypeProvider>();
  instance.server.on('request', closeWhenStalled);
  closeConnectionsOnceClosing(instance);
  if (options.onRoute) instance.addHook('onRoute', options.onRoute);
  try {
    await instance.register(app, options);
  } catch (error) {
    // What the plugins loaded so far opened (Redis connections, threads) is released: the
    // API process tries a boot a full disk stopped again (src/api/server.ts).
    await instance.close().catch(() => {});
    throw error;
  }
  return instance;
}
