import { RateLimiterSQLite, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../db/open-database.js';
import { HOUR, MINUTE, SECOND } from '../time.js';

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

const TABLE = 'login_failures';

/**
 * Throttles password guessing. Each attempt counts against two budgets: the username as
 * tried from that address, and the address across all usernames. Once either is spent,
 * logins from that address (for that username, or for any) are refused until the window
 * ends, before the password is checked. A right password takes its attempt back and starts
 * its username's count from that address over. Counting by username *and* address means
 * failures made elsewhere never lock anyone out of their own account; people behind one
 * address share its budget.
 *
 * The counters live in the auth service's SQLite file (rate-limiter-flexible's store), so a
 * restart does not reset them.
 */
export function loginThrottle(db: Database, limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
  const limiter = (keyPrefix: string, { failures, windowMs }: { failures: number; windowMs: number }) =>
    new RateLimiterSQLite({
      storeClient: db, storeType: 'better-sqlite3', tableName: TABLE, tableCreated: true, keyPrefix,
      points: failures, duration: windowMs / SECOND,
    });
  const byAccountAddress = limiter('account-address', limits.perAccountAddress);
  const byAddress = limiter('address', limits.perAddress);
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
      const outcomes = await Promise.allSettled([byAccountAddress.consume(key), byAddress.consume(address)]);
      let waitMs = 0;
      for (const outcome of outcomes) {
        if (outcome.status === 'fulfilled') continue;
        // consume() rejects with the limiter's result once a budget is spent, and with an Error when the store fails.
        if (outcome.reason instanceof Error) throw outcome.reason;
        waitMs = Math.max(waitMs, (outcome.reason as RateLimiterRes).msBeforeNext);
      }
      if (waitMs > 0) await Promise.all([byAccountAddress.reward(key, 1), byAddress.reward(address, 1)]);
      return waitMs;
    },
    /** The password was right: the attempt was no failure, and this username's count from this address starts over. */
    async succeeded(username: string, address: string): Promise<void> {
      await Promise.all([byAccountAddress.delete(pair(username, address)), byAddress.reward(address, 1)]);
    },
    /** Drops counters whose window has ended. */
    purgeExpired: () => db.prepare(`DELETE FROM ${TABLE} WHERE expire < ?`).run(Date.now()).changes,
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
