import { createHash } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { AccountOut } from '../auth/schemas.js';
import { authStoreUnavailable, authUnavailable, STORE_UNAVAILABLE_RETRY_SECONDS, unauthorized } from '../errors.js';
import { readCappedBody } from '../http/read-capped-body.js';
import { SECOND } from '../time.js';

/** An account is a few hundred bytes; a larger answer is not one. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface Account {
  id: string;
  username: string;
  displayName: string;
}

export interface TokenVerifier {
  /**
   * The account a bearer token belongs to; throws 401 for a bad token, 503 (with the auth
   * service's Retry-After) when the auth service answers 503, 502 when it cannot be reached.
   */
  verify(token: string): Promise<Account>;
}

export interface TokenVerifierOptions {
  authUrl: string;
  /** How long a positive answer is reused (ms). A logout takes effect within this bound. 0 disables the cache. */
  cacheMs: number;
  timeoutMs?: number;
  maxCached?: number;
}

/** How long the API waits for the auth service to verify a token (ms); the auth service's store deadlines end within it (src/db/pool-policy.ts). */
export const AUTH_VERIFY_TIMEOUT_MS = 3 * SECOND;

/** The Retry-After (s) of an auth service's 503, or the store's own when it sent none. */
export function retryAfterSeconds(response: Response): number {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isInteger(seconds) && seconds > 0 && seconds <= 3600 ? seconds : STORE_UNAVAILABLE_RETRY_SECONDS;
}

export function tokenVerifier({ authUrl, cacheMs, timeoutMs = AUTH_VERIFY_TIMEOUT_MS, maxCached = 10_000 }: TokenVerifierOptions): TokenVerifier {
  // Keyed by a hash so the cache never holds usable tokens.
  const cache = new Map<string, { account: Account; until: number }>();

  async function ask(token: string): Promise<Account> {
    let response: Response;
    try {
      response = await fetch(`${authUrl}/auth/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw authUnavailable(error);
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      if (response.status === 401) throw unauthorized('The bearer token is not valid.');
      // The auth service answered, and says to retry (its store is down, say): passed on as such.
      if (response.status === 503) throw authStoreUnavailable(retryAfterSeconds(response), new Error('auth service answered 503'));
      throw authUnavailable(new Error(`auth service answered ${response.status}`));
    }
    let body: unknown;
    try {
      body = JSON.parse((await readCappedBody(response, MAX_ANSWER_BYTES)).toString('utf8'));
    } catch (error) {
      throw authUnavailable(error);
    }
    // Whatever answers at AUTH_URL is not trusted to be the auth service: an answer that is
    // not an account counts as no answer, never as an identity.
    if (!Value.Check(AccountOut, body)) throw authUnavailable(new Error('auth service answered 200 without an account'));
    return { id: body.id, username: body.username, displayName: body.displayName };
  }

  return {
    async verify(token) {
      if (cacheMs <= 0) return ask(token);
      const key = createHash('sha256').update(token).digest('base64url');
      const now = Date.now();
      const hit = cache.get(key);
      if (hit && hit.until > now) return hit.account;
      const account = await ask(token);
      if (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
      cache.set(key, { account, until: now + cacheMs });
      return account;
    },
  };
}
