import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { ggConfigsTable } from '../../db/gg-configs-table.js';
import { harnessConfigTable } from '../../db/harness-config-table.js';
import { jobsTable } from '../../db/jobs-table.js';
import { maskPostgresUrl } from '../../db/store-copy/store-location.js';
import { ConsoleEventBus } from '../../events/console-event-bus.js';
import { ConsoleStreams } from '../../events/console-streams.js';
import type { HarnessConfigTable } from '../../jobs/harness-caps.js';
import { dispatchRecorder } from '../../jobs/dispatch-recorder.js';
import { jobStateCopier } from '../../jobs/job-state-copier.js';
import type { JobsContext } from '../../jobs/jobs-context.js';
import { storedLaunchCatalog, type LaunchCatalog } from '../../jobs/launch-catalog.js';
import { launchModelAdmission } from '../../models/admit-launch-model.js';
import { reconcileJobsLocked, redisRestartHealer } from '../../jobs/heal-redis-restart.js';
import { reapOrphanedJobs } from '../../jobs/reconcile-jobs.js';
import { scheduleBilledRateRefresh } from '../../models/billed-rate-refresh.js';
import { requeueLivePublishJobs } from '../../runs/publish-run.js';
import { RunQueue } from '../../queue/run-queue.js';
import { ScheduleLocks } from '../../queue/schedule-lock.js';
import { scheduleStaleJobSweep } from '../../jobs/stale-jobs-processor.js';
import { scheduleStrandedJobPass } from '../../jobs/stranded-job-pass.js';
import { bullConnection } from '../../redis/managed-redis.js';
import { failFastConnection, queueProducerConnection, quitConnection } from '../../redis/redis-connections.js';
import { watchRedisRestarts } from '../../redis/redis-restarts.js';
import { claimStoreIdentity } from '../../runtime/store-identity.js';
import { MINUTE, SECOND } from '../../time.js';

declare module 'fastify' {
  interface FastifyInstance {
    runJobs: JobsContext;
    consoleStreams: ConsoleStreams;
    harnessConfig: HarnessConfigTable;
    /** Live job streams follow with a blocking read on a duplicate of this connection. */
    jobsRedis: Redis;
    liveStreams: { heartbeatMs: number; drainTimeoutMs: number };
  }
}

export interface RunJobsOptions {
  /** Defaults to reading ingested versions from SQLite and the definition store (the claim benchmark fixes it). */
  catalog?: LaunchCatalog;
  /** Idle heartbeat of the console and job live streams (default 15 s, ms). */
  heartbeatMs?: number;
  /** Frames a console stream holds for a slow client before it resyncs it (default 1000). */
  consoleBufferFrames?: number;
  /** Characters of frames a console stream holds for a slow client before it resyncs it (default 1 Mi, one or two bytes each), whichever bound comes first. */
  consoleBufferChars?: number;
  /** A job live follower whose socket does not drain within this long is disconnected (default WRITE_STALL_TIMEOUT_SECONDS, ms). */
  liveDrainTimeoutMs?: number;
  /**
   * When a reconcile runs while serving (Redis restarted, or SQLite missed claims), jobs
   * enqueued within this long are reconciled in a second pass, once past it; also the period
   * of the pass that queues jobs a launch left in SQLite without their Redis add, and the age
   * they must reach first (default 1 minute, ms).
   */
  restartGraceMs?: number;
  /** Claims held unwritten at most while SQLite takes no writes (default: the recorder's). */
  maxUnwrittenClaims?: number;
  /** Told how boot's reconcile goes (the API process passes it on to its supervisor, which then waits for a long boot). */
  onBootProgress?: (what: string) => void;
}

/**
 * The run job queue and its live streams: Redis connections, the BullMQ-backed queue, the
 * console event bus. Reconciles SQLite with Redis and reaps orphaned jobs while the app
 * boots, so nothing is served before the two agree, and again whenever Redis restarts.
 */
async function runJobs(app: FastifyInstance, options: RunJobsOptions) {
  const { config, sqlite } = app;
  if (!config.redisUrl) throw new Error('REDIS_URL must be resolved (the managed redis-server\'s address) before the app is built.');
  const log = app.log.child({ area: 'jobs' });
  // No auto-pipelining: it builds an ioredis Pipeline per batch, about 30 µs of this thread
  // per lone call more than a plain connection (sequential claim scripts, timed side by
  // side). The run queue batches its own writes instead (RunQueue.batchWrites).
  const redis = await failFastConnection(config.redisUrl, 'jobs', log);
  await claimStoreIdentity(redis, app.store, { prefix: config.redisPrefix, name: sqlite?.name ?? maskPostgresUrl(config.databaseUrl!), discard: config.discardRedisOfStore }).catch(async (error: unknown) => {
    await quitConnection(redis);
    throw error;
  });
  const queue = new RunQueue({ redis, prefix: config.redisPrefix, log });
  // Named, so `CLIENT LIST` tells an operator which connection carries the console channel.
  const subscriber = await failFastConnection(config.redisUrl, 'console-channel', log, { connectionName: queue.keys.consoleChannel });
  const bus = new ConsoleEventBus(redis, subscriber, queue.keys.consoleChannel, (error) => log.warn({ err: error }, 'console event not published'));
  const heartbeatMs = options.heartbeatMs ?? 15 * SECOND;
  const streams = new ConsoleStreams(bus, { heartbeatMs, maxBuffered: options.consoleBufferFrames ?? 1000, maxBufferedChars: options.consoleBufferChars ?? 1024 * 1024 }, queue.keys.consoleStreams, (error) =>
    log.warn({ err: error }, 'console stream not registered'),
  );
  const live = { heartbeatMs, drainTimeoutMs: options.liveDrainTimeoutMs ?? config.writeStallTimeoutMs };

  app.addHook('preClose', async () => {
    // Open streams would hold the server open; end them so shutdown finishes.
    streams.closeAll();
  });
  app.addHook('onClose', async () => {
    // State copies still waiting for the store get a last try while Redis can hear their confirmations.
    await copier.close();
    await bus.close();
    await queue.close();
    await quitConnection(redis);
  });

  bus.start();
  const jobs = jobsTable(app.store);
  const copier = jobStateCopier(jobs, queue, log);
  const ctx: JobsContext = {
    jobs,
    ggConfigs: ggConfigsTable(app.store),
    queue,
    bus,
    catalog: options.catalog ?? storedLaunchCatalog(app.catalog.index, app.catalog.versions, { includeExperimental: config.allowExperimental }),
    models: launchModelAdmission(app.models, app.router, (error) => log.warn({ err: error }, 'billed-rate observation at enqueue failed')),
    records: app.runs.records,
    dispatches: dispatchRecorder(app.store, sqlite ?? undefined, (error) => log.error({ err: error }, 'claims not yet copied to the store'), undefined, {
      maxUnwritten: options.maxUnwrittenClaims,
      // The healer is made below, before anything is claimed.
      onDropped: (count) => healer.reconcile(`${count} claims were left to Redis while SQLite took no writes; reconciling them`),
      onResumed: () => log.info('SQLite takes claim writes again'),
    }),
    copier,
    log,
  };
  // Claims answered but not yet copied are written before the store closes.
  app.addHook('onClose', () => ctx.dispatches.close());
  const harnessConfig = harnessConfigTable(app.store);
  const locks = new ScheduleLocks(redis, config.redisPrefix);
  // Several API processes (no reaping) means another may be mid-enqueue or mid-claim now.
  const reconciled = await reconcileJobsLocked(locks, ctx, harnessConfig, {
    exclusive: config.reapOrphanedJobs,
    onProgress: (checked) => options.onBootProgress?.(`reconciled ${checked} in-flight jobs with Redis`),
    onLockWait: () => options.onBootProgress?.('waiting for another process to finish reconciling jobs with Redis'),
  });
  if (reconciled.updated + reconciled.requeued + reconciled.lost > 0) log.info(reconciled, 'reconciled jobs with Redis');
  if (config.reapOrphanedJobs) {
    const reaped = await reapOrphanedJobs(ctx, (done, of) => options.onBootProgress?.(`failed ${done} of ${of} jobs a previous process left in flight`));
    if (reaped > 0) log.info({ reaped }, 'failed jobs a previous process left in flight');
  }
  // What Redis holds beside the run jobs and SQLite can give back: the recurring jobs'
  // schedulers and the live publish jobs' queue entries. Put there at boot, and again after a restart.
  const restore = async () => {
    await scheduleStaleJobSweep(bullConnection(config.redisUrl), config.redisPrefix, { dispatchLeaseMs: config.dispatchLeaseMs, runtimeGraceMs: config.runtimeGraceMs });
    await scheduleBilledRateRefresh(queueProducerConnection(config.redisUrl), config.redisPrefix);
    await requeueLivePublishJobs(app.runs.publishJobs, app.runs.publishQueue);
  };
  await restore();
  const graceMs = options.restartGraceMs ?? MINUTE;
  const healer = redisRestartHealer(ctx, harnessConfig, { locks, graceMs, restore, log });
  app.addHook('onClose', async () => healer.close());
  // Jobs too young to settle at boot (another process may be adding them now) are queued by
  // the periodic pass once past the grace, as are those any process strands later.
  const afterSeq = reconciled.firstTooYoung === null ? reconciled.lastSeq : reconciled.firstTooYoung - 1;
  const stranded = scheduleStrandedJobPass(ctx, { afterSeq, graceMs, log });
  app.addHook('onClose', () => stranded.close());
  await watchRedisRestarts(redis, () => healer.reconcile('Redis restarted; reconciling its jobs with SQLite'), (error) => log.warn({ err: error }, 'could not tell whether Redis restarted'));

  app.decorate('runJobs', ctx);
  app.decorate('consoleStreams', streams);
  app.decorate('harnessConfig', harnessConfig);
  app.decorate('jobsRedis', redis);
  app.decorate('liveStreams', live);
}

export default fp(runJobs, { name: 'run-jobs', fastify: '5.x', dependencies: ['store', 'models', 'runs'] });
