import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Account, TokenVerifier } from '../../accounts/verify-token.js';
import { unauthorized } from '../../errors.js';

/**
 * What a route needs from the caller, declared in its options as `config: { auth }`:
 * - `account`: an account bearer token verified by the auth service;
 * - `service`: the dispatcher service token (SERVICE_TOKEN);
 * Routes without `auth` are open.
 */
export type AuthRequirement = 'account' | 'service';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
  interface FastifyRequest {
    account: Account | null;
  }
}

export interface AuthenticateOptions {
  verifier: TokenVerifier;
  serviceToken: string | null;
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function authenticate(app: FastifyInstance, { verifier, serviceToken }: AuthenticateOptions) {
  app.decorateRequest('account', null);
  app.addHook('onRequest', async (request) => {
    const requirement = request.routeOptions.config.auth;
    if (!requirement) return;
    const token = bearerToken(request);
    if (!token) throw unauthorized('This endpoint needs an Authorization: Bearer <token> header.');
    if (requirement === 'service') {
      if (!serviceToken) throw unauthorized('Dispatcher claims are disabled: SERVICE_TOKEN is not configured.');
      if (!sameSecret(token, serviceToken)) throw unauthorized('The service token is not valid.');
      return;
    }
    request.account = await verifier.verify(token);
  });
}

export default fp(authenticate, { name: 'authenticate', fastify: '5.x' });
