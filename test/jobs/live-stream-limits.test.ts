import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_EVENT_MAX_BYTES } from '../../src/jobs/relay-job-events.js';
import { redisOptionsFromUrl, startManagedRedis, type ManagedRedis } from '../../src/redis/managed-redis.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { openLive } from '../helpers/ndjson-client.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

const SERVICE = 'dispatch-secret';
const MODEL = 'openai/gpt-5';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL };

describe('GET /jobs/{id}/live under load', () => {
  // Its own redis-server, so CLIENT LIST counts only this file's connections.
  const dir = mkdtempSync(join(tmpdir(), 'evb-live-'));
  let redis: ManagedRedis;
  let admin: Redis;
  let backend: TestBackend;
  let base: string;
  let http: ReturnType<typeof jobsHttp>;
  let operator: string;

  beforeAll(async () => {
    redis = await startManagedRedis({ dir, persistent: false });
    admin = new Redis(redisOptionsFromUrl(redis.url));
    // A thousand followers from one address: past the default stream caps.
    backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, REDIS_URL: redis.url, STREAMS_PER_CLIENT: '2000', STREAMS_TOTAL: '2000' }, { pricedModels: [MODEL], jobs: { heartbeatMs: 5000, liveDrainTimeoutMs: 400 } });
    await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
    base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
    http = jobsHttp(base);
    operator = (await backend.auth.register('live-op')).token;
  });
  afterAll(async () => {
    await backend.close();
    admin.disconnect();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function runningJob() {
    const { jobId } = (await http.post('/jobs', operator, launch)).body;
    const claimed = (await http.post('/jobs/next', SERVICE)).body;
    expect(claimed.jobId).toBe(jobId);
    return { jobId: jobId as string, jobToken: claimed.jobToken as string };
  }

  it('refuses one relayed event over the size limit with 413 naming it', async () => {
    const { jobId, jobToken } = await runningJob();
    const answer = await http.post(`/jobs/${jobId}/events`, jobToken, [{ ok: 1 }, { text: 'x'.repeat(LIVE_EVENT_MAX_BYTES) }]);
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('payload_too_large');
    expect(answer.body.error.message).toContain(`body[1]`);
    expect(answer.body.error.message).toContain(String(LIVE_EVENT_MAX_BYTES));
  });

  it('serves a thousand followers over a handful of Redis connections', async () => {
    const { jobId, jobToken } = await runningJob();
    const clients = async () => ((await admin.client('LIST')) as string).split('\n').filter(Boolean).length;
    const before = await clients();
    const followers = await Promise.all(Array.from({ length: 1000 }, () => openLive(`${base}/jobs/${jobId}/live`)));
    await http.post(`/jobs/${jobId}/events`, jobToken, [{ step: 'to all' }]);
    await Promise.all(followers.map((follower) => follower.until(() => follower.lines.includes('{"step":"to all"}'), 30_000)));
    expect((await clients()) - before).toBeLessThanOrEqual(2);
    await http.post(`/jobs/${jobId}/status`, jobToken, { state: 'failed', detail: 'done' });
    await Promise.all(followers.map((follower) => follower.done));
  }, 90_000);

  it('cuts off a client that never reads, holding no more than a page of its backlog', async () => {
    const { jobId, jobToken } = await runningJob();
    // 16 MiB of backlog: far more than any socket buffer takes.
    const event = { text: 'y'.repeat(200_000) };
    for (let batch = 0; batch < 10; batch++) await http.post(`/jobs/${jobId}/events`, jobToken, Array.from({ length: 8 }, () => event));

    // The server's end of our connection, found by the client's port.
    const accepted = new Map<number, Socket>();
    const onConnection = (server: Socket) => accepted.set(server.remotePort!, server);
    backend.app.server.on('connection', onConnection);
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(base).port) });
    socket.on('error', () => {});
    await new Promise((ready) => socket.once('connect', ready));
    socket.pause();
    socket.write(`GET /jobs/${jobId}/live HTTP/1.1\r\nhost: localhost\r\n\r\n`);
    await until(() => accepted.has(socket.localPort!), 5000, 'the server to accept');
    const server = accepted.get(socket.localPort!)!;
    backend.app.server.off('connection', onConnection);
    // The server drops the connection once the client fails to drain within liveDrainTimeoutMs.
    await until(() => server.destroyed, 10_000, 'the server to drop the stalled follower');
    expect(server.bytesWritten).toBeLessThan(16 * 1024 * 1024);
    socket.destroy();
  }, 30_000);
});
