import { describe, expect, it, inject } from 'vitest';
import { Redis } from 'ioredis';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redactRedisUrl, redisOptionsFromUrl, startManagedRedis } from '../../src/redis/managed-redis.js';

describe('managed redis', () => {
  it('answers on the URL the global setup provides', async () => {
    const client = new Redis(redisOptionsFromUrl(inject('redisUrl')));
    expect(await client.ping()).toBe('PONG');
    expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    client.disconnect();
  });
});

describe('redactRedisUrl', () => {
  it('masks a password and leaves everything else as it was', () => {
    expect(redactRedisUrl('redis://user:s3cret@queue-host:6379/2')).toBe('redis://user:***@queue-host:6379/2');
    expect(redactRedisUrl('rediss://:s3cret@queue-host:6380')).toBe('rediss://:***@queue-host:6380');
    expect(redactRedisUrl('redis://queue-host:6379')).toBe('redis://queue-host:6379');
    expect(redactRedisUrl('redis+unix:///srv/data/redis/redis.sock')).toBe('redis+unix:///srv/data/redis/redis.sock');
  });
});

describe('startManagedRedis', () => {
  it('refuses to start a second server on a folder a live one serves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evb-twice-'));
    const first = await startManagedRedis({ dir, persistent: false });
    try {
      await expect(startManagedRedis({ dir, persistent: false })).rejects.toThrow(/already serves/);
      const client = new Redis(redisOptionsFromUrl(first.url));
      expect(await client.ping()).toBe('PONG');
      client.disconnect();
    } finally {
      await first.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
