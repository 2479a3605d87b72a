import { describe, expect, it, inject } from 'vitest';
import { Redis } from 'ioredis';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';

describe('managed redis', () => {
  it('answers on the URL the global setup provides', async () => {
    const client = new Redis(redisOptionsFromUrl(inject('redisUrl')));
    expect(await client.ping()).toBe('PONG');
    expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    client.disconnect();
  });
});
