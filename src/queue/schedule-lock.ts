/**
 * Per-owner mutual exclusion across processes (shared by plan and ladder top-ups and halts):
 * `SET key token NX PX ttl`, renewed while the holder works, released by a token-checked
 * script. A holder that dies leaves the claim to expire after one TTL.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SECOND } from '../time.js';
import { loadLuaScript } from './load-lua-script.js';
import { scheduleLockKey } from './queue-keys.js';

type Script = (key: string, ...args: Array<string | number>) => Promise<number>;

export interface HeldLock {
  /**
   * Renews the claim and confirms it is still this holder's; throws when it was lost (the
   * holder stalled past the TTL). Called right before a holder commits what the lock guards.
   */
  confirm(): Promise<void>;
}

export interface ScheduleLockOptions {
  /** How long a claim lives without renewal (default 30 s, ms); renewed every third of it. */
  ttlMs?: number;
  /** Pause between attempts when a caller waits for a held lock (default 25 ms). */
  retryMs?: number;
}

export class ScheduleLocks {
  private readonly release: Script;
  private readonly extend: Script;
  private readonly ttlMs: number;
  private readonly retryMs: number;

  constructor(private readonly redis: Redis, private readonly prefix: string, options: ScheduleLockOptions = {}) {
    this.ttlMs = options.ttlMs ?? 30 * SECOND;
    this.retryMs = options.retryMs ?? 25;
    for (const [name, file] of [['scheduleLockRelease', 'schedule-lock-release.lua'], ['scheduleLockExtend', 'schedule-lock-extend.lua']] as const) {
      if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: 1, lua: loadLuaScript(file) });
    }
    const commands = redis as unknown as Record<'scheduleLockRelease' | 'scheduleLockExtend', Script>;
    this.release = (...args) => commands.scheduleLockRelease.apply(redis, args);
    this.extend = (...args) => commands.scheduleLockExtend.apply(redis, args);
  }

  /**
   * Runs `work` holding `owner`'s lock. Answers `{ held: false }` when another holder has it
   * and `waitMs` (default 0: do not wait) passes without it coming free.
   */
  async withLock<T>(
    owner: string,
    work: (lock: HeldLock) => Promise<T>,
    options: { waitMs?: number; onWait?: () => void } = {},
  ): Promise<{ held: true; value: T } | { held: false }> {
    const key = scheduleLockKey(this.prefix, owner);
    const token = randomBytes(16).toString('hex');
    const giveUpAt = Date.now() + (options.waitMs ?? 0);
    while ((await this.redis.set(key, token, 'PX', this.ttlMs, 'NX')) !== 'OK') {
      if (Date.now() >= giveUpAt) return { held: false };
      options.onWait?.();
      await new Promise((resume) => setTimeout(resume, this.retryMs));
    }
    let lost = false;
    const renew = async () => {
      if ((await this.extend(key, token, this.ttlMs)) !== 1) lost = true;
    };
    const timer = setInterval(() => void renew().catch(() => undefined), Math.max(10, Math.floor(this.ttlMs / 3)));
    timer.unref();
    try {
      const value = await work({
        async confirm() {
          await renew();
          if (lost) throw new Error(`The schedule lock of ${owner} expired while it was held.`);
        },
      });
      return { held: true, value };
    } finally {
      clearInterval(timer);
      await this.release(key, token).catch(() => undefined);
    }
  }
}
