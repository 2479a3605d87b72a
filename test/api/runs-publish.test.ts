import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeArtifactService } from '../fakes/fake-artifact-service.js';
import { listenOnLoopback } from '../fakes/loopback-server.js';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { openConsole } from '../helpers/jobs-fixtures.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { ingestCatalog, publishAndWait, seedRun } from '../helpers/runs-test-helpers.js';
import { bearer, FILES_UNDER_DATA_DIR, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let baseUrl: string;
let token: string;
let artifacts: Awaited<ReturnType<typeof startFakeArtifactService>>;

beforeAll(async () => {
  artifacts = await startFakeArtifactService();
  backend = await startTestBackend({
    CATALOG_DIR: EXAMPLE_CATALOG,
    ARTIFACTS_URL: artifacts.origin,
    ARTIFACTS_SERVICE_TOKEN: 'svc-secret',
    SNAPSHOT_DEPLOY_HOOK: `${artifacts.origin}/hook`,
    ...FILES_UNDER_DATA_DIR,
  });
  baseUrl = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  await ingestCatalog(backend, ['skiff-race']);
  ({ token } = await backend.auth.register('alice'));
});
afterAll(async () => {
  await backend.close();
  await artifacts.server.close();
});

const publish = (id: string, auth = true) =>
  backend.app.inject({ method: 'POST', url: `/runs/${id}/publish`, ...(auth ? { headers: bearer(token) } : {}) });
const liveLines = async (liveUrl: string) => {
  const text = await (await fetch(`${baseUrl}${liveUrl}`)).text();
  return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
};

describe('a run from a stored record through review, publish and snapshot', () => {
  it('is refused while unreviewed, then released through the artifact service and snapshotted', async () => {
    await seedRun(backend, runRecord({ id: 'journey', links: { sourceRepo: 'https://record/repo' } }));
    const refused = await publish('journey');
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.message).toContain('needs at least one review');

    const reviewed = await backend.app.inject({
      method: 'POST',
      url: '/runs/journey/reviews',
      headers: bearer(token),
      payload: { ratings: [{ domain: 'solo', rating: 'great' }, { domain: 'duel', rating: 'great' }], writeup: 'Good.' },
    });
    expect(reviewed.statusCode).toBe(200);
    const { publishJobId, liveUrl } = await publishAndWait(backend, token, 'journey');
    expect(liveUrl).toBe(`/publish-jobs/${publishJobId}/live`);

    const lines = await liveLines(liveUrl);
    expect(lines.at(-1)).toEqual({ type: 'result', state: 'succeeded', sourceRepo: 'https://git.example/runs/journey', playableBuild: 'https://play.example/journey/' });
    expect(lines.slice(0, -1).every((line) => line.type === 'progress')).toBe(true);
    expect(artifacts.calls).toContainEqual({ method: 'POST', path: '/runs/journey/release', authorization: 'Bearer svc-secret' });

    const detail = (await backend.app.inject('/runs/journey')).json();
    expect(detail).toMatchObject({ published: true, publishedAt: expect.any(String), links: { sourceRepo: 'https://git.example/runs/journey' }, rating: 'great' });
    // Publishing again answers the finished job rather than starting another release.
    expect((await publish('journey')).json().publishJobId).toBe(publishJobId);

    const refreshed = await backend.app.inject({ method: 'POST', url: '/snapshot/refresh' });
    expect(refreshed.json()).toEqual({ refreshed: true, runs: 1, hookFired: true });
    const index = JSON.parse(readFileSync(join(backend.config.snapshotDir, 'runs.json'), 'utf8'));
    expect(index.runs.map((run: { id: string }) => run.id)).toEqual(['journey']);
    expect(index.runs[0]).toMatchObject({ rating: detail.rating, score: detail.score, caseName: 'Regatta' });
    expect(JSON.parse(readFileSync(join(backend.config.snapshotDir, 'runs', 'journey.json'), 'utf8'))).toMatchObject({ id: 'journey', published: true });
    expect(artifacts.calls.some((call) => call.path === '/hook')).toBe(true);
  });

  it('refuses infrastructure failures and canceled runs, and needs a token', async () => {
    await seedRun(backend, runRecord({ id: 'infra', state: 'infrastructure' }));
    await seedRun(backend, runRecord({ id: 'canceled', state: 'canceled' }));
    expect((await publish('infra')).statusCode).toBe(422);
    expect((await publish('canceled')).statusCode).toBe(422);
    expect((await publish('infra', false)).statusCode).toBe(401);
    expect((await publish('nope')).statusCode).toBe(404);
  });

  it('enqueues once under concurrent requests and answers the same live job to all', async () => {
    await seedRun(backend, runRecord({ id: 'racy', state: 'hung' }));
    artifacts.state.releaseDelayMs = 300;
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(`${baseUrl}/runs/racy/publish`, { method: 'POST', headers: bearer(token) })));
      const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as { publishJobId: string; liveUrl: string }[];
      expect(answers.every((answer) => answer.status === 202)).toBe(true);
      expect(new Set(bodies.map((body) => body.publishJobId)).size).toBe(1);
      const lines = await liveLines(bodies[0]!.liveUrl);
      expect(lines.at(-1)).toMatchObject({ type: 'result', state: 'succeeded' });
      expect(artifacts.calls.filter((call) => call.path === '/runs/racy/release')).toHaveLength(1);
    } finally {
      artifacts.state.releaseDelayMs = 0;
    }
  });

  it('raises publish-failed when the release fails, and a failed job is retryable at once', async () => {
    await seedRun(backend, runRecord({ id: 'flaky', state: 'catastrophic' }));
    // What a console sees: the notification frame on the real SSE stream.
    const consoleStream = await openConsole(baseUrl);
    artifacts.state.releaseStatus = 500;
    try {
      const first = (await publish('flaky')).json();
      const lines = await liveLines(first.liveUrl);
      expect(lines.at(-1)).toMatchObject({ type: 'result', state: 'failed', detail: expect.stringContaining('HTTP 500') });
      const frame = await consoleStream.next((candidate) => candidate.event === 'notification');
      expect(JSON.parse(frame.data)).toMatchObject({ kind: 'publish-failed', jobId: first.publishJobId, outcome: 'failed', recordId: 'flaky', testCaseSlug: 'skiff-race', modelId: 'anthropic/claude-x' });
      expect((await backend.app.inject('/runs/flaky')).json().published).toBe(false);

      artifacts.state.releaseStatus = 200;
      const retry = (await publish('flaky')).json();
      expect(retry.publishJobId).not.toBe(first.publishJobId);
      expect((await liveLines(retry.liveUrl)).at(-1)).toMatchObject({ state: 'succeeded' });
    } finally {
      artifacts.state.releaseStatus = 200;
      consoleStream.close();
    }
  });

  it('stops a live publish job from blocking after an hour', async () => {
    await seedRun(backend, runRecord({ id: 'orphan', state: 'hung' }));
    const jobs = backend.app.runs.publishJobs;
    const dead = (await jobs.claim('orphan', Date.now() - 61 * 60_000)).job;
    const fresh = await jobs.claim('orphan');
    expect(fresh.created).toBe(true);
    expect(await jobs.get(dead.id)).toMatchObject({ state: 'failed' });
    // A live job younger than an hour still blocks: the same job is answered again.
    expect(await jobs.claim('orphan')).toMatchObject({ created: false, job: { id: fresh.job.id } });
  });

  it('answers 404 for an unknown publish job', async () => {
    expect((await backend.app.inject('/publish-jobs/nope/live')).statusCode).toBe(404);
  });
});

describe('DELETE /runs/{id}', () => {
  it('refuses a published readable run, deletes others with reviews and media, and prunes artifacts', async () => {
    expect((await backend.app.inject({ method: 'DELETE', url: '/runs/journey', headers: bearer(token) })).statusCode).toBe(422);
    await seedRun(backend, runRecord({ id: 'doomed' }));
    const before = artifacts.calls.length;
    const response = await backend.app.inject({ method: 'DELETE', url: '/runs/doomed', headers: bearer(token) });
    expect(response.json()).toEqual({ id: 'doomed', deleted: true });
    expect(artifacts.calls.slice(before)).toContainEqual({ method: 'DELETE', path: '/runs/doomed/artifacts', authorization: 'Bearer svc-secret' });
    expect((await backend.app.inject('/runs/doomed')).statusCode).toBe(404);
    expect((await backend.app.inject({ method: 'DELETE', url: '/runs/doomed', headers: bearer(token) })).statusCode).toBe(404);
    expect((await backend.app.inject({ method: 'DELETE', url: '/runs/doomed' })).statusCode).toBe(401);
  });

  it('deletes a published run whose record became unreadable', async () => {
    const record = runRecord({ id: 'legacy-format', state: 'hung' });
    await seedRun(backend, record);
    await publishAndWait(backend, token, 'legacy-format');
    await seedRun(backend, { ...record, recordFormat: 9 });
    const response = await backend.app.inject({ method: 'DELETE', url: '/runs/legacy-format', headers: bearer(token) });
    expect(response.json()).toEqual({ id: 'legacy-format', deleted: true });
  });
});

describe('artifact prune against a service that is down', () => {
  it('still deletes the run', async () => {
    const down = await listenOnLoopback(() => undefined);
    await down.stopListening();
    const other = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG, ARTIFACTS_URL: down.origin, ARTIFACTS_SERVICE_TOKEN: 't', ...FILES_UNDER_DATA_DIR });
    try {
      const { token: t } = await other.auth.register('bob');
      await seedRun(other, runRecord({ id: 'lonely' }));
      const media = join(other.dataDir, 'run-media', 'lonely', 'showcase');
      mkdirSync(media, { recursive: true });
      writeFileSync(join(media, 'shot.png'), 'png');
      const response = await other.app.inject({ method: 'DELETE', url: '/runs/lonely', headers: bearer(t) });
      expect(response.json()).toEqual({ id: 'lonely', deleted: true });
      expect(existsSync(join(other.dataDir, 'run-media', 'lonely'))).toBe(false);
    } finally {
      await other.close();
      await down.close();
    }
  });
});
