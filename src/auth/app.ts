import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { bearerToken } from '../http/bearer-token.js';
import crossOrigin from '../http/cross-origin.js';
import errorEnvelope, { envelopeServerOptions } from '../http/error-envelope.js';
import jsonBody from '../http/json-body.js';
import { requestValidators } from '../http/request-validators.js';
import { errorResponses, NoContent } from '../contract/common.js';
import type { CorsOrigins, Registration } from '../config.js';
import { conflict, forbidden, tooManyRequests, unauthorized } from '../errors.js';
import { HOUR, SECOND } from '../time.js';
import { accountStore } from './account-store.js';
import type { AuthStore } from './auth-store.js';
import { loginThrottle, type LoginLimits } from './login-throttle.js';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from './password-hash.js';
import { loginClientAddress } from './relayed-client.js';
import { AccountOut, LoginBody, RegisterBody, Session } from './schemas.js';

export interface AuthAppOptions {
  /** The auth service's own store; the caller opens and closes it. */
  store: AuthStore;
  /** Origins whose pages may call from a browser (`*`: any, the default). */
  corsOrigins?: CorsOrigins;
  /** Null: tokens never expire. */
  tokenLifetimeMs: number | null;
  /** Failed-login budgets; the defaults of login-throttle.ts unless given. */
  loginLimits?: LoginLimits;
  /** AUTH_RELAY_TOKEN: a login carrying it is throttled by the client address it names (null: never). */
  relayToken?: string | null;
  /** REGISTRATION: `closed` refuses `POST /auth/register` (403); accounts are then made by an operator command. */
  registration?: Registration;
  /** Sees each route as it is registered (the route fuzzer enumerates them this way). */
  onRoute?: (route: RouteOptions) => void;
}

const BAD_LOGIN = 'The username or password is wrong.';

const authRoutes: FastifyPluginAsyncTypebox<AuthAppOptions> = async (app, { store, tokenLifetimeMs, loginLimits, relayToken = null, registration = 'open' }) => {
  const accounts = accountStore(store);
  const throttle = loginThrottle(store, loginLimits);

  app.post('/auth/register', { schema: { body: RegisterBody, response: { 201: Session, ...errorResponses(400, 403, 409) } } }, async (request, reply) => {
    if (registration === 'closed') {
      throw forbidden('Registration is closed on this deployment (REGISTRATION=closed); an operator makes accounts with `eval-backend accounts add`.');
    }
    const { username, password, displayName } = request.body;
    const account = await accounts.create(username, displayName, await hashPassword(password));
    if (!account) throw conflict(`The username ${username} is taken.`);
    return reply.code(201).send({ token: await accounts.issueToken(account.id, tokenLifetimeMs), account });
  });

  app.post('/auth/login', { schema: { body: LoginBody, response: { 200: Session, ...errorResponses(400, 401, 429, 503) } } }, async (request) => {
    const { username, password } = request.body;
    const address = loginClientAddress(request, relayToken);
    const waitMs = await throttle.attempt(username, address);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / SECOND);
      throw tooManyRequests(`Too many failed logins for ${username} from this address; try again in ${seconds} s.`, seconds);
    }
    const stored = await accounts.findByUsername(username);
    const matches = await verifyPassword(password, stored?.passwordHash ?? (await decoyHash()));
    if (!stored || !matches) throw unauthorized(BAD_LOGIN);
    await throttle.succeeded(username, address);
    if (needsRehash(stored.passwordHash)) {
      // Best effort: the login stands even if the rehash fails; the next login tries again.
      await hashPassword(password)
        .then((hash) => accounts.setPasswordHash(stored.id, hash))
        .catch((error: unknown) => request.log.error({ err: error, account: stored.id }, 'rehashing an imported password failed'));
    }
    const account = { id: stored.id, username: stored.username, displayName: stored.displayName };
    return { token: await accounts.issueToken(stored.id, tokenLifetimeMs), account };
  });

  app.post('/auth/verify', { schema: { response: { 200: AccountOut, ...errorResponses(401) } } }, async (request) => {
    const token = bearerToken(request);
    const account = token ? await accounts.accountForToken(token) : null;
    if (!account) throw unauthorized('The bearer token is not valid.');
    return account;
  });

  app.post('/auth/logout', { schema: { response: { 204: NoContent, ...errorResponses() } } }, async (request, reply) => {
    const token = bearerToken(request);
    if (token) await accounts.revokeToken(token);
    return reply.code(204).send(null);
  });

  const purge = setInterval(() => {
    Promise.all([accounts.purgeExpired(), throttle.purgeExpired()]).catch((error: unknown) => app.log.error({ err: error }, 'purging expired tokens and login counters failed'));
  }, HOUR).unref();
  app.addHook('onClose', async () => clearInterval(purge));
};

export async function buildAuthApp(options: AuthAppOptions & { logLevel?: string }): Promise<FastifyInstance> {
  const app = Fastify({
    logger: !options.logLevel || options.logLevel === 'silent' ? false : { level: options.logLevel },
    genReqId: () => randomUUID(),
    schemaController: { compilersFactory: { buildValidator: requestValidators } },
    ...envelopeServerOptions,
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  await app.register(errorEnvelope);
  await app.register(jsonBody);
  await app.register(crossOrigin, { origins: options.corsOrigins ?? '*' });
  const { store, tokenLifetimeMs, loginLimits, relayToken = null, registration = 'open' } = options;
  await app.register(authRoutes, { store, tokenLifetimeMs, relayToken, registration, ...(loginLimits ? { loginLimits } : {}) });
  return app;
}
