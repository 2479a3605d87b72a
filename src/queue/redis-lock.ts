import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { MINUTE, SECOND } from '../time.js';
import { loadLuaScript } from './load-lua-script.js';

export interface RedisLockOptions {
  /** How long a holder that stopped renewing (a crashed process) keeps the lock (default 1 minute, ms). */
  ttlMs?: number;
  /** How long to wait for another holder before giving up (default 10 minutes, ms). */
  waitMs?: number;
  /** Told when a holder lost its lock while still working (it outlived its TTL unrenewed). */
  onLost?(key: string): void;
}

export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

const RETRY = 100;

/**
 * One holder at a time across every process on the deployment's Redis: SET NX with a
 * random token and a TTL, renewed every third of it while the work runs, released by a
 * token check so a holder never frees a lock another process took after it expired.
 */
export function redisLock(redis: Redis, key: string, options: RedisLockOptions = {}): Exclusive {
  const ttlMs = options.ttlMs ?? MINUTE;
  const waitMs = options.waitMs ?? 10 * MINUTE;
  const extend = loadLuaScript('extend-lock.lua');
  const release = loadLuaScript('release-lock.lua');

  async function acquire(token: string): Promise<void> {
    const deadline = Date.now() + waitMs;
    while ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') {
      if (Date.now() > deadline) throw new Error(`Another process held the lock ${key} for longer than ${waitMs / SECOND} s.`);
      // Holders hold for seconds; polling a tenth of a second keeps the wait short and Redis idle.
      await new Promise((wake) => setTimeout(wake, RETRY));
    }
  }

  return async (work) => {
    const token = randomUUID();
    await acquire(token);
    const renew = setInterval(() => {
      redis.eval(extend, 1, key, token, ttlMs).then(
        (extended) => void (extended === 0 && options.onLost?.(key)),
        () => options.onLost?.(key),
      );
    }, ttlMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await redis.eval(release, 1, key, token).catch(() => undefined);
    }
  };
}
