import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runQueueKeys } from '../../src/queue/queue-keys.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { artifactService } from '../../src/runs/artifact-service.js';
import { redisNotificationPublisher } from '../../src/runs/notification-publisher.js';
import { publishJobs } from '../../src/runs/publish-jobs.js';
import { publishLiveWriter, type PublishLine } from '../../src/runs/publish-live.js';
import { runPublishJob, type PublisherDeps } from '../../src/runs/publish-run.js';
import { startFakeArtifactService } from '../fakes/fake-artifact-service.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let artifacts: Awaited<ReturnType<typeof startFakeArtifactService>>;
let redis: Redis;
let subscriber: Redis;
let errors: string[];
let notifications: string[];

/** The publisher as the publish worker builds it, over the test backend's store and Redis. */
const publisher = (overrides: Partial<PublisherDeps> = {}): PublisherDeps => ({
  store: backend.store,
  rows: backend.app.runs.rows,
  jobs: publishJobs(backend.store),
  artifacts: artifactService({ url: artifacts.origin, serviceToken: null }),
  notifications: redisNotificationPublisher(redis, backend.config.redisPrefix),
  requestSnapshot: async () => {},
  writeLine: (id) => publishLiveWriter(redis, backend.config.redisPrefix, id),
  onError: (error, context) => errors.push(`${context}: ${error instanceof Error ? error.message : String(error)}`),
  ...overrides,
});

/**
 * Makes the store refuse to mark a publish job succeeded, as a failing disk would, until the
 * answered function is called. A trigger is written in each engine's own language.
 */
async function refuseSuccess(): Promise<() => Promise<void>> {
  const { db } = backend.store;
  if (backend.store.engine === 'sqlite') {
    await sql`CREATE TEMP TRIGGER refuse_success BEFORE UPDATE OF state ON publish_jobs WHEN NEW.state = 'succeeded'
      BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`.execute(db);
    return async () => void (await sql`DROP TRIGGER refuse_success`.execute(db));
  }
  await sql`CREATE FUNCTION refuse_success() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk I/O error'; END $$`.execute(db);
  await sql`CREATE TRIGGER refuse_success BEFORE UPDATE OF state ON publish_jobs FOR EACH ROW WHEN (NEW.state = 'succeeded')
    EXECUTE FUNCTION refuse_success()`.execute(db);
  return async () => void (await sql`DROP FUNCTION refuse_success() CASCADE`.execute(db));
}

/** The publish-failed alerts about a run published on the console channel so far (a marker sent after them arrives last). */
async function publishFailedSoFar(runId: string): Promise<string[]> {
  const marker = `marker-${Math.random()}`;
  const arrived = new Promise<void>((done) => subscriber.on('message', (_channel, message) => message === marker && done()));
  await redis.publish(runQueueKeys(backend.config.redisPrefix).consoleChannel, marker);
  await arrived;
  return notifications.filter((message) => message.includes('"publish-failed"') && message.includes(`"recordId":"${runId}"`));
}

beforeAll(async () => {
  artifacts = await startFakeArtifactService();
  backend = await startTestBackend({ RUN_WORKERS: 'false' });
  redis = new Redis(redisOptionsFromUrl(backend.config.redisUrl));
  subscriber = redis.duplicate();
  notifications = [];
  subscriber.on('message', (_channel, message: string) => notifications.push(message));
  await subscriber.subscribe(runQueueKeys(backend.config.redisPrefix).consoleChannel);
});
beforeEach(() => {
  errors = [];
  artifacts.state.releaseBody = null;
});
afterAll(async () => {
  subscriber.disconnect();
  redis.disconnect();
  await backend.close();
  await artifacts.server.close();
});

async function publishJobFor(id: string) {
  await seedRun(backend, runRecord({ id }));
  return (await publishJobs(backend.store).claim(id)).job.id;
}

describe('the publisher', () => {
  it('fails the publish, with the reason, when the release answer cannot be read, rather than publishing without links', async () => {
    const jobId = await publishJobFor('garbled-release');
    artifacts.state.releaseBody = '<html>gateway error</html>';
    await runPublishJob(publisher(), { publishJobId: jobId, runId: 'garbled-release' });
    expect((await backend.app.runs.rows.get('garbled-release'))!.published).toBe(0);
    expect(await publishJobs(backend.store).get(jobId)).toMatchObject({ state: 'failed', detail: expect.stringContaining('not JSON') });
    expect(await publishFailedSoFar('garbled-release')).toHaveLength(1);

    artifacts.state.releaseBody = '[]';
    const again = (await publishJobs(backend.store).claim('garbled-release')).job.id;
    await runPublishJob(publisher(), { publishJobId: again, runId: 'garbled-release' });
    expect(await publishJobs(backend.store).get(again)).toMatchObject({ state: 'failed', detail: expect.stringContaining('not an object') });
  });

  it('keeps a released run published, and raises no publish-failed, when the final live write fails', async () => {
    const jobId = await publishJobFor('released-run');
    const live = publisher();
    // Redis refusing the last line of the live stream, after the release and its commit.
    const writeLine = (id: string) => {
      const write = live.writeLine(id);
      return async (line: PublishLine) => (line.type === 'result' ? Promise.reject(new Error('connection lost')) : write(line));
    };
    await runPublishJob({ ...live, writeLine }, { publishJobId: jobId, runId: 'released-run' });
    expect(await backend.app.runs.rows.get('released-run')).toMatchObject({ published: 1, link_source_repo: 'https://git.example/runs/released-run' });
    expect((await publishJobs(backend.store).get(jobId))!.state).toBe('succeeded');
    expect(await publishFailedSoFar('released-run')).toEqual([]);
    expect(errors).toEqual(['writing the publish result: connection lost']);
  });

  it('publishes the run and ends its job together: a job that cannot be marked done leaves the run unpublished', async () => {
    const jobId = await publishJobFor('half-done');
    const lift = await refuseSuccess();
    try {
      await runPublishJob(publisher(), { publishJobId: jobId, runId: 'half-done' });
    } finally {
      await lift();
    }
    expect(await publishJobs(backend.store).get(jobId)).toMatchObject({ state: 'failed', detail: 'disk I/O error' });
    expect((await backend.app.runs.rows.get('half-done'))!.published).toBe(0);
  });
});
