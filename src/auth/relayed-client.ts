import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { sameSecret } from '../http/same-secret.js';

/** The relay token (AUTH_RELAY_TOKEN) a login relayed by the backend carries. */
const RELAY_TOKEN_HEADER = 'x-auth-relay-token';
/** The address of the client the relayed login came from. */
const CLIENT_ADDRESS_HEADER = 'x-auth-client-address';

/** Headers of a login the backend relays for a client at `address` (the queue dashboard's Basic logins). */
export function relayedClientHeaders(relayToken: string, address: string): Record<string, string> {
  return { [RELAY_TOKEN_HEADER]: relayToken, [CLIENT_ADDRESS_HEADER]: address };
}

/**
 * The address a login is throttled by: the peer's, unless the login carries the relay token
 * and names a valid IP address, which the backend relaying it vouches for. Forwarding
 * headers (`X-Forwarded-For` and the like) are never read, so no client picks its own address.
 */
export function loginClientAddress(request: FastifyRequest, relayToken: string | null): string {
  if (!relayToken) return request.ip;
  const token = request.headers[RELAY_TOKEN_HEADER];
  const address = request.headers[CLIENT_ADDRESS_HEADER];
  if (typeof token !== 'string' || !sameSecret(token, relayToken)) return request.ip;
  return typeof address === 'string' && isIP(address) !== 0 ? address : request.ip;
}
