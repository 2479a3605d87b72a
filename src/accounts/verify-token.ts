import { createHash } from 'node:crypto';
import { authUnavailable, unauthorized } from '../errors.js';
import { SECOND } from '../time.js';

export interface Account {
  id: string;
  username: string;
  displayName: string;
}

export interface TokenVerifier {
  /** The account a bearer token belongs to; throws 401 for a bad token, 502 when the auth service is unreachable. */
  verify(token: string): Promise<Account>;
}

export interface TokenVerifierOptions {
  authUrl: string;
  /** How long a positive answer is reused (ms). A logout takes effect within this bound. 0 disables the cache. */
  cacheMs: number;
  timeoutMs?: number;
  maxCached?: number;
}

export function tokenVerifier({ authUrl, cacheMs, timeoutMs = 3 * SECOND, maxCached = 10_000 }: TokenVerifierOptions): TokenVerifier {
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
    if (response.status === 401) throw unauthorized('The bearer token is not valid.');
    if (!response.ok) throw authUnavailable(new Error(`auth service answered ${response.status}`));
    try {
      return (await response.json()) as Account;
    } catch (error) {
      throw authUnavailable(error);
    }
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
