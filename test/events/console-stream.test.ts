import { createConnection } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { openConsole, seedCatalog, type SseClient } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

const MODEL = 'openai/gpt-5';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL };
let backend: TestBackend;
let base: string;
let http: ReturnType<typeof jobsHttp>;
let operator: string;

beforeAll(async () => {
  backend = await startTestBackend({}, { pricedModels: [MODEL], jobs: { heartbeatMs: 150, consoleBufferFrames: 20 } });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  operator = (await backend.auth.register('operator')).token;
});
afterAll(() => backend.close());

/** A console with the runs topic switched on. */
async function runsConsole(): Promise<SseClient> {
  const client = await openConsole(base);
  expect((await http.put(`/notifications/${await client.streamId}/topics`, undefined, { runs: true })).status).toBe(204);
  return client;
}

describe('GET /notifications', () => {
  it('opens with a stream frame and delivers runs only once the topic is switched on', async () => {
    const client = await openConsole(base);
    try {
      expect(client.frames[0]?.event ?? (await client.next(() => true)).event).toBe('stream');
      const streamId = await client.streamId;
      const quiet = (await http.post('/jobs', operator, launch)).body.jobId;
      expect((await http.put(`/notifications/${streamId}/topics`, undefined, { runs: true })).status).toBe(204);
      const loud = (await http.post('/jobs', operator, launch)).body.jobId;
      await client.next((frame) => frame.event === 'run' && JSON.parse(frame.data).runId === loud);
      expect(client.frames.some((frame) => frame.data.includes(quiet))).toBe(false);
      expect(client.frames.every((frame) => frame.event !== undefined)).toBe(true);
    } finally {
      client.close();
      await http.post('/jobs/cancel-all', operator);
    }
  });

  it('delivers each run event of a channel message that carries several, in order', async () => {
    const client = await runsConsole();
    const publisher = new Redis(redisOptionsFromUrl(inject('redisUrl')));
    try {
      // As the claim script sends the run events of one call.
      const events = ['one', 'two', 'three'].map((runId) => JSON.stringify({ kind: 'state-changed', state: 'dispatched', runId }));
      await publisher.publish(backend.app.runJobs.queue.keys.consoleChannel, `r${events.join('\n')}`);
      await client.next((frame) => frame.event === 'run' && JSON.parse(frame.data).runId === 'three');
      expect(client.frames.filter((frame) => frame.event === 'run').map((frame) => frame.data)).toEqual(events);
    } finally {
      publisher.disconnect();
      client.close();
    }
  });

  it('answers 404 for a stream that is not connected and 400 for a bad body', async () => {
    expect((await http.put('/notifications/nope/topics', undefined, { runs: true })).status).toBe(404);
    const client = await openConsole(base);
    const streamId = await client.streamId;
    expect((await http.put(`/notifications/${streamId}/topics`, undefined, { runs: 'yes' })).status).toBe(400);
    client.close();
    await until(async () => (await http.put(`/notifications/${streamId}/topics`, undefined, { runs: true })).status === 404, 5000, 'the closed stream to be forgotten');
  });

  it('sends a payload-less heartbeat while idle, and a comment keep-alive', async () => {
    const client = await openConsole(base);
    try {
      const heartbeat = await client.next((frame) => frame.event === 'heartbeat', 2000);
      expect(heartbeat.data).toBe('');
      await until(() => client.comments.length > 0, 2000, 'a keep-alive comment');
    } finally {
      client.close();
    }
  });

  it('resyncs a client that fell behind with the count of dropped frames', async () => {
    const { resyncs, dropped, delivered } = await stallConsole(backend, base, 1500);
    expect(resyncs).toBeGreaterThan(0);
    expect(dropped).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(1500);
    // Every notification not delivered is counted; heartbeats queued while stalled may add a few.
    expect(dropped).toBeGreaterThanOrEqual(1500 - delivered);
    expect(dropped).toBeLessThanOrEqual(1500 - delivered + 10);
  });
});

describe('GET /notifications with large frames', () => {
  let roomy: TestBackend;
  let roomyBase: string;
  beforeAll(async () => {
    // Room for every frame by count: only the bound on their characters can drop any.
    roomy = await startTestBackend({}, { jobs: { heartbeatMs: 150, consoleBufferFrames: 100_000, consoleBufferChars: 256 * 1024 } });
    roomyBase = await roomy.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => roomy.close());

  it('resyncs a stalled client once its held frames pass the character bound, whatever their count', async () => {
    // 1,500 frames of 16 KiB: some 24 MB, more than the socket buffers take, and 1.5% of the frame bound.
    const { resyncs, dropped, delivered } = await stallConsole(roomy, roomyBase, 1500);
    expect(resyncs).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(1500);
    expect(dropped).toBeGreaterThanOrEqual(1500 - delivered);
  });
});

/**
 * Opens a console on a raw socket that does not read, publishes `count` notifications of
 * 16 KiB each, then reads: the resync frames, the frames they count as dropped, and the
 * notifications delivered.
 */
async function stallConsole(on: TestBackend, origin: string, count: number): Promise<{ resyncs: number; dropped: number; delivered: number }> {
  const { port } = new URL(origin);
  const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
  await new Promise((done) => socket.once('connect', done));
  // Earlier tests' consoles are gone first, so the count below is this one's.
  await until(() => on.app.consoleStreams.size === 0, 5000, 'earlier consoles to close');
  socket.write(`GET /notifications HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  socket.pause();
  await until(() => on.app.consoleStreams.size === 1, 5000, 'the stalled console to be connected');
  // A stalled console: far more than the socket buffers and the stream's buffer hold.
  const payload = 'x'.repeat(16 * 1024);
  // Listeners run in order, so once this one has seen every frame the stream's has too.
  let received = 0;
  const stopCounting = await on.app.runJobs.bus.listen((topic) => void (topic === 'notifications' && received++));
  for (let i = 0; i < count; i++) on.app.runJobs.bus.publishNotification({ kind: 'run-completed', jobId: `j${i}`, message: payload });
  await until(() => received === count, 20_000, 'every notification to reach this process');
  stopCounting();

  const frames: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (frame) => frames.push(frame) });
  let headerDone = false;
  socket.on('data', (chunk: Buffer) => {
    let text = chunk.toString();
    if (!headerDone) {
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      headerDone = true;
      text = text.slice(end + 4);
    }
    // Chunked transfer encoding: strip the size lines, keep the data.
    parser.feed(text.replace(/(^|\r\n)[0-9a-f]+\r\n/g, '$1'));
  });
  socket.resume();
  const resyncs = () => frames.filter((frame) => frame.event === 'resync');
  const dropped = () => resyncs().reduce((sum, frame) => sum + (JSON.parse(frame.data) as { dropped: number }).dropped, 0);
  const notifications = () => frames.filter((frame) => frame.event === 'notification').length;
  // Frames still buffered follow the resync: read until every notification is delivered or counted as dropped.
  await until(() => notifications() + dropped() >= count, 10_000, 'every notification delivered or counted');
  socket.destroy();
  return { resyncs: resyncs().length, dropped: dropped(), delivered: notifications() };
}

describe('GET /notifications when Redis drops the console channel', () => {
  it('resyncs every open console once the channel is subscribed again, then delivers as before', async () => {
    const client = await runsConsole();
    const admin = new Redis(redisOptionsFromUrl(inject('redisUrl')));
    try {
      const channel = backend.app.runJobs.queue.keys.consoleChannel;
      const clients = (await admin.client('LIST')) as string;
      const ours = clients.split('\n').filter((line) => line.includes(` name=${channel} `));
      expect(ours).toHaveLength(1);
      const id = /\bid=(\d+)/.exec(ours[0]!)![1]!;
      expect(await admin.client('KILL', 'ID', id)).toBe(1);

      const resync = await client.next((frame) => frame.event === 'resync', 10_000);
      expect(JSON.parse(resync.data)).toEqual({ dropped: 0 });
      const after = (await http.post('/jobs', operator, launch)).body.jobId;
      await client.next((frame) => frame.event === 'run' && JSON.parse(frame.data).runId === after);
    } finally {
      admin.disconnect();
      client.close();
      await http.post('/jobs/cancel-all', operator);
    }
  });
});
