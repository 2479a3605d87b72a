import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Account, TokenVerifier } from '../../accounts/verify-token.js';
import { forbidden, unauthorized } from '../../errors.js';
import { bearerToken } from '../../http/bearer-token.js';
import { sameSecret } from '../../http/same-secret.js';
import { verifyJobToken, type JobTokenHashOf } from '../../jobs/verify-job-token.js';

/**
 * What a route needs from the caller, declared in its options as `config: { auth }`:
 * - `account`: an account bearer token verified by the auth service;
 * - `operator`: the same, of an operator account (OPERATOR_ACCOUNTS; when that is empty,
 *   every account is one, as the contract has it);
 * - `service`: the dispatcher service token (SERVICE_TOKEN);
 * - `job`: the per-job token minted when the job in the `:id` path parameter was claimed;
 * - `job-header`: the same, for the job named in the `x-svc-job-id` header (a driver writing
 *   to a run, whose id is not its job's).
 * Routes without `auth` are open.
 */
export type AuthRequirement = 'account' | 'operator' | 'service' | 'job' | 'job-header';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
  interface FastifyRequest {
    account: Account | null;
    /** Whether `account` may do operator actions (set with it). */
    isOperator: boolean;
  }
}

export interface AuthenticateOptions {
  verifier: TokenVerifier;
  serviceToken: string | null;
  jobTokenHash?: JobTokenHashOf;
  /** OPERATOR_ACCOUNTS, lowercased; empty: every account is an operator. */
  operators?: ReadonlySet<string>;
}

/** No OPERATOR_ACCOUNTS: every account is an operator. One set for every request, not one each. */
const EVERY_ACCOUNT: ReadonlySet<string> = new Set();

/**
 * Checks the caller against the route's requirement: synchronously where it can (the service
 * token, on every claim), a promise where a lookup is needed (job tokens, accounts).
 */
function authorize(request: FastifyRequest, requirement: AuthRequirement, { verifier, serviceToken, jobTokenHash, operators = EVERY_ACCOUNT }: AuthenticateOptions): void | Promise<void> {
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
    return verifyJobToken(jobTokenHash ?? (() => undefined), jobId, token);
  }
  return verifier.verify(token).then((account) => {
    request.account = account;
    request.isOperator = operators.size === 0 || operators.has(account.username.toLowerCase());
    if (requirement === 'operator' && !request.isOperator) {
      throw forbidden(`${request.method} ${request.routeOptions.url} is an operator action, and ${account.username} is not among OPERATOR_ACCOUNTS.`);
    }
  });
}

async function authenticate(app: FastifyInstance, options: AuthenticateOptions) {
  app.decorateRequest('account', null);
  app.decorateRequest('isOperator', false);
  // A callback hook, not an async one: an open route or a service-token claim passes without
  // a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, _reply, done) => {
    const requirement = request.routeOptions.config.auth;
    if (!requirement) return done();
    let pending: void | Promise<void>;
    try {
      pending = authorize(request, requirement, options);
    } catch (error) {
      return done(error as Error);
    }
    if (pending) pending.then(() => done(), done);
    else done();
  });
}

export default fp(authenticate, { name: 'authenticate', fastify: '5.x' });
