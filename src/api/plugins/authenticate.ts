import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Account, TokenVerifier } from '../../accounts/verify-token.js';
import { unauthorized } from '../../errors.js';
import { sameSecret } from '../../http/same-secret.js';
import { verifyJobToken, type JobTokenHashOf } from '../../jobs/verify-job-token.js';

/**
 * What a route needs from the caller, declared in its options as `config: { auth }`:
 * - `account`: an account bearer token verified by the auth service;
 * - `service`: the dispatcher service token (SERVICE_TOKEN);
 * - `job`: the per-job token minted when the job in the `:id` path parameter was claimed;
 * - `job-header`: the same, for the job named in the `x-svc-job-id` header (a driver writing
 *   to a run, whose id is not its job's).
 * Routes without `auth` are open.
 */
export type AuthRequirement = 'account' | 'service' | 'job' | 'job-header';

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
  jobTokenHash?: JobTokenHashOf;
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

async function authenticate(app: FastifyInstance, { verifier, serviceToken, jobTokenHash }: AuthenticateOptions) {
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
    if (requirement === 'job' || requirement === 'job-header') {
      const jobId = requirement === 'job' ? (request.params as { id?: string }).id : request.headers['x-svc-job-id'];
      if (typeof jobId !== 'string' || jobId === '') {
        throw unauthorized('This endpoint names its job in the x-svc-job-id header, whose per-job token is the bearer token; a run id is not a job id.');
      }
      await verifyJobToken(jobTokenHash ?? (() => undefined), jobId, token);
      return;
    }
    request.account = await verifier.verify(token);
  });
}

export default fp(authenticate, { name: 'authenticate', fastify: '5.x' });
