import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, expect, it, inject } from 'vitest';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { RunQueue } from '../../src/queue/run-queue.js';

const redis = new Redis(redisOptionsFromUrl(inject('redisUrl')));
const queue = new RunQueue({ redis, prefix: `tl${randomUUID().slice(0, 8)}`, liveCap: 50, liveCapBytes: 10_000 });
afterAll(async () => {
  await queue.close();
  redis.disconnect();
});

async function newRun() {
  const id = randomUUID();
  await queue.add([{ id, seq: 1, harness: 'claude', jam: '', request: {}, subjectJson: `"runId":"${id}"`, origin: null }]);
  return id;
}

it('keeps a live backlog within its byte cap, dropping the oldest events first', async () => {
  const id = await newRun();
  const line = (n: number) => JSON.stringify({ n, text: 'x'.repeat(980) });
  for (let batch = 0; batch < 5; batch++) await queue.appendLive(id, Array.from({ length: 6 }, (_, i) => line(batch * 6 + i)));
  const kept = (await queue.liveEvents(id)).map((text) => (JSON.parse(text) as { n: number }).n);
  const bytes = (await queue.liveEvents(id)).reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  expect(bytes).toBeLessThanOrEqual(10_000);
  expect(kept.length).toBeGreaterThanOrEqual(9);
  // The newest survive, in order, with nothing missing between them.
  expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 30 - kept.length + i));
  expect(Number(await redis.hget(queue.keys.run(id), 'liveBytes'))).toBe(bytes);
});

it('keeps a live backlog within its entry cap, and ignores a run with no state', async () => {
  const id = await newRun();
  await queue.appendLive(id, Array.from({ length: 80 }, (_, n) => JSON.stringify({ n })));
  const kept = (await queue.liveEvents(id)).map((text) => (JSON.parse(text) as { n: number }).n);
  expect(kept).toEqual(Array.from({ length: 50 }, (_, i) => 30 + i));

  const unknown = randomUUID();
  await queue.appendLive(unknown, ['{"n":1}']);
  expect(await redis.exists(queue.keys.live(unknown))).toBe(0);
});
