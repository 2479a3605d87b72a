import { sql } from 'kysely';
import { HOUR, MINUTE } from '../time.js';
import type { AuthStore } from './auth-store.js';

export interface LoginLimits {
  /** Failed logins one address may make for one username per window (default 10 per 15 minutes). */
  perAccountAddress: { failures: number; windowMs: number };
  /** Failed logins one address may make across all usernames per window (default 100 per hour). */
  perAddress: { failures: number; windowMs: number };
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perAccountAddress: { failures: 10, windowMs: 15 * MINUTE },
  perAddress: { failures: 100, windowMs: HOUR },
};

/**
 * Throttles password guessing. Each attempt counts against two budgets: the username as
 * tried from that address, and the address across all usernames. Once either is spent,
 * logins from that address (for that username, or for any) are refused until the window
 * ends, before the password is checked. A right password takes its attempt back and starts
 * its username's count from that address over. Counting by username *and* address means
 * failures made elsewhere never lock anyone out of their own account; people behind one
 * address share its budget.
 *
 * The counters live in the auth service's store (`login_failures`, one row per budget and
 * subject, keyed `<budget>:<subject>` as rate-limiter-flexible kept them), so a restart
 * does not reset them.
 */
export function loginThrottle(store: AuthStore, limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
  const { db } = store;
  /**
   * Adds `points` to a counter in one atomic upsert, starting a new window when the held one
   * has ended; answers the window's count and its end (ms since the epoch).
   */
  const add = (key: string, points: number, windowMs: number) => {
    const now = Date.now();
    const held = sql<boolean>`login_failures.expire IS NULL OR login_failures.expire > ${now}`;
    return db.insertInto('login_failures').values({ key, points, expire: now + windowMs })
      .onConflict((oc) => oc.column('key').doUpdateSet({
        points: sql`CASE WHEN ${held} THEN login_failures.points + excluded.points ELSE excluded.points END`,
        expire: sql`CASE WHEN ${held} THEN login_failures.expire ELSE excluded.expire END`,
      }))
      .returning(['points', 'expire'])
      .executeTakeFirstOrThrow();
  };
  const budget = (prefix: string, { failures, windowMs }: { failures: number; windowMs: number }) => ({
    /** Counts one failure; answers how long (ms) to wait when the budget was already spent, else 0. */
    async consume(subject: string): Promise<number> {
      const { points, expire } = await add(`${prefix}:${subject}`, 1, windowMs);
      return points > failures && expire !== null ? Math.max(expire - Date.now(), 0) : 0;
    },
    reward: (subject: string) => add(`${prefix}:${subject}`, -1, windowMs),
    forget: (subject: string) => db.deleteFrom('login_failures').where('key', '=', `${prefix}:${subject}`).execute(),
  });
  const byAccountAddress = budget('account-address', limits.perAccountAddress);
  const byAddress = budget('address', limits.perAddress);
  const pair = (username: string, address: string) => `${username.normalize('NFKC').toLowerCase()}|${address}`;

  return {
    /**
     * Counts a login attempt as a failure before its password is checked, so concurrent
     * guesses cannot all pass a check made before any of them failed. Answers the
     * milliseconds to wait when a budget is already spent (the attempt is then not
     * counted), or 0 to go on and check the password.
     */
    async attempt(username: string, address: string): Promise<number> {
      const key = pair(username, address);
      const waits = await Promise.all([byAccountAddress.consume(key), byAddress.consume(address)]);
      const waitMs = Math.max(...waits);
      if (waitMs > 0) await Promise.all([byAccountAddress.reward(key), byAddress.reward(address)]);
      return waitMs;
    },
    /** The password was right: the attempt was no failure, and this username's count from this address starts over. */
    async succeeded(username: string, address: string): Promise<void> {
      await Promise.all([byAccountAddress.forget(pair(username, address)), byAddress.reward(address)]);
    },
    /** Drops counters whose window has ended. */
    purgeExpired: async (): Promise<number> => Number((await db.deleteFrom('login_failures').where('expire', '<', Date.now()).executeTakeFirst()).numDeletedRows),
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
