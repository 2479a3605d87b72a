import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, expect, inject, it } from 'vitest';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { StreamTail } from '../../src/redis/stream-tail.js';

const reader = new Redis(redisOptionsFromUrl(inject('redisUrl')));
const control = new Redis(redisOptionsFromUrl(inject('redisUrl')));
// A long block, so only the interruption can make a late follower's read prompt.
const tail = new StreamTail(reader, control, { blockMs: 20_000 });
const key = (name: string) => `tt${randomUUID().slice(0, 8)}:${name}`;
afterAll(() => {
  tail.close();
  reader.disconnect();
  control.disconnect();
});

it('serves a follower that joins while the shared read blocks, without waiting out the block', async () => {
  const [first, second] = [key('a'), key('b')];
  const waiting = tail.read(first, '0-0', 30_000);
  // Let the shared XREAD block on the first stream alone.
  await new Promise((done) => setImmediate(done));
  const began = Date.now();
  const joined = tail.read(second, '0-0', 30_000);
  await control.xadd(second, '*', 'e', 'to the late one');
  const entries = await joined;
  expect(entries.map(([, fields]) => fields)).toEqual([['e', 'to the late one']]);
  expect(Date.now() - began).toBeLessThan(5000);

  await control.xadd(first, '*', 'e', 'to the first');
  expect((await waiting).map(([, fields]) => fields)).toEqual([['e', 'to the first']]);
});

it('gives two followers of one stream at different positions what each has not seen', async () => {
  const stream = key('c');
  const early = await control.xadd(stream, '*', 'e', '1');
  await control.xadd(stream, '*', 'e', '2');
  const [fromStart, fromEarly] = await Promise.all([tail.read(stream, '0-0', 5000), tail.read(stream, early!, 5000)]);
  expect(fromStart.map(([, fields]) => fields[1])).toEqual(['1', '2']);
  expect(fromEarly.map(([, fields]) => fields[1])).toEqual(['2']);
});

it('answers nothing once a follower times out or its signal aborts', async () => {
  expect(await tail.read(key('d'), '0-0', 50)).toEqual([]);
  const controller = new AbortController();
  const pending = tail.read(key('e'), '0-0', 30_000, controller.signal);
  controller.abort();
  expect(await pending).toEqual([]);
});
