/**
 * Per-owner mutual exclusion across processes (shared by plan and ladder top-ups and halts):
 * `SET key token NX PX ttl`, renewed while the holder works, released by a token-checked
 * script. A holder that dies leaves the claim to expire after one TTL.
 *
 * A caller that must not be dropped when the lock is busy (a review's auto top-up) leaves a
 * mark instead (`markWhenBusy`); a holder that acts on marks (`repeatWhileMarked`, every
 * top-up) runs its work again before it lets go for as long as it finds one. Taking with a
 * mark and releasing are each one script, so a mark is never left after the holder's last look.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { MINUTE, SECOND } from '../time.js';
import { loadLuaScript } from './load-lua-script.js';
import { scheduleAgainKey, scheduleLockKey } from './queue-keys.js';

type Script = (...keysAndArgs: Array<string | number>) => Promise<number>;

const SCRIPTS = [
  ['scheduleLockTake', 'schedule-lock-take.lua', 2],
  ['scheduleLockRelease', 'schedule-lock-release.lua', 2],
  ['scheduleLockExtend', 'schedule-lock-extend.lua', 1],
] as const;

/** `schedule-lock-release.lua`'s answer when a mark kept the lock for another round. */
const KEPT_FOR_MARK = 2;

/**
 * How long a mark lives: well past any holder's work, so it is seen; a mark left by a caller
 * whose holder died only costs the next holder one more (harmless) top-up.
 */
const MARK_TTL_MS = 10 * MINUTE;

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
  private readonly take: Script;
  private readonly release: Script;
  private readonly extend: Script;
  private readonly ttlMs: number;
  private readonly retryMs: number;

  constructor(private readonly redis: Redis, private readonly prefix: string, options: ScheduleLockOptions = {}) {
    this.ttlMs = options.ttlMs ?? 30 * SECOND;
    this.retryMs = options.retryMs ?? 25;
    for (const [name, file, numberOfKeys] of SCRIPTS) {
      if (!(name in redis)) redis.defineCommand(name, { numberOfKeys, lua: loadLuaScript(file) });
    }
    const commands = redis as unknown as Record<(typeof SCRIPTS)[number][0], Script>;
    this.take = (...args) => commands.scheduleLockTake.apply(redis, args);
    this.release = (...args) => commands.scheduleLockRelease.apply(redis, args);
    this.extend = (...args) => commands.scheduleLockExtend.apply(redis, args);
  }

  /**
   * Runs `work` holding `owner`'s lock. Answers `{ held: false }` when another holder has it
   * and `waitMs` (default 0: do not wait) passes without it coming free; with `markWhenBusy`
   * that answer has left the mark. With `repeatWhileMarked` the holder runs `work` again,
   * still holding the lock, each time it finds a mark as it lets go; the answer is the first
   * run's value, and a later run that throws ends the rounds, handed to `onRepeatError`.
   */
  async withLock<T>(
    owner: string,
    work: (lock: HeldLock) => Promise<T>,
    options: {
      waitMs?: number; onWait?: () => void; markWhenBusy?: boolean; repeatWhileMarked?: boolean; onRepeatError?: (error: unknown) => void;
    } = {},
  ): Promise<{ held: true; value: T } | { held: false }> {
    const key = scheduleLockKey(this.prefix, owner);
    const again = scheduleAgainKey(this.prefix, owner);
    const token = randomBytes(16).toString('hex');
    const giveUpAt = Date.now() + (options.waitMs ?? 0);
    const markTtl = options.markWhenBusy ? MARK_TTL_MS : 0;
    const repeat = options.repeatWhileMarked ? 1 : 0;
    while ((await this.take(key, again, token, this.ttlMs, markTtl)) !== 1) {
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
    const held: HeldLock = {
      async confirm() {
        await renew();
        if (lost) throw new Error(`The schedule lock of ${owner} expired while it was held.`);
      },
    };
    // Released (or lost) by the script that found no mark; until then `finally` releases.
    let letGo = false;
    const letGoUnlessMarked = async () => (await this.release(key, again, token, repeat, this.ttlMs).catch(() => 1)) !== KEPT_FOR_MARK;
    try {
      const value = await work(held);
      while (!(letGo = await letGoUnlessMarked())) {
        try {
          await work(held);
        } catch (error) {
          options.onRepeatError?.(error);
          break;
        }
      }
      return { held: true, value };
    } finally {
      clearInterval(timer);
      if (!letGo) await this.release(key, again, token, 0, this.ttlMs).catch(() => undefined);
    }
  }
}
