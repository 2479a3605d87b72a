import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { bearerToken } from '../api/plugins/authenticate.js';
import crossOrigin from '../api/plugins/cross-origin.js';
import errorEnvelope from '../api/plugins/error-envelope.js';
import { errorResponses, NoContent } from '../api/schemas/common.js';
import type { CorsOrigins } from '../config.js';
import type { Database } from '../db/open-database.js';
import { conflict, unauthorized } from '../errors.js';
import { accountStore } from './account-store.js';
import { decoyHash, hashPassword, verifyPassword } from './password-hash.js';
import { AccountOut, LoginBody, RegisterBody, Session } from './schemas.js';

export interface AuthAppOptions {
  db: Database;
  /** Origins whose pages may call from a browser (`*`: any, the default). */
  corsOrigins?: CorsOrigins;
  /** Null: tokens never expire. */
  tokenLifetimeMs: number | null;
}

const BAD_LOGIN = 'The username or password is wrong.';

const authRoutes: FastifyPluginAsyncTypebox<AuthAppOptions> = async (app, { db, tokenLifetimeMs }) => {
  const accounts = accountStore(db);

  app.post('/auth/register', { schema: { body: RegisterBody, response: { 201: Session, ...errorResponses(400, 409) } } }, async (request, reply) => {
    const { username, password, displayName } = request.body;
    const account = accounts.create(username, displayName, await hashPassword(password));
    if (!account) throw conflict(`The username ${username} is taken.`);
    return reply.code(201).send({ token: accounts.issueToken(account.id, tokenLifetimeMs), account });
  });

  app.post('/auth/login', { schema: { body: LoginBody, response: { 200: Session, ...errorResponses(400, 401) } } }, async (request) => {
    const stored = accounts.findByUsername(request.body.username);
    const matches = await verifyPassword(request.body.password, stored?.passwordHash ?? (await decoyHash()));
    if (!stored || !matches) throw unauthorized(BAD_LOGIN);
    const account = { id: stored.id, username: stored.username, displayName: stored.displayName };
    return { token: accounts.issueToken(stored.id, tokenLifetimeMs), account };
  });

  app.post('/auth/verify', { schema: { response: { 200: AccountOut, ...errorResponses(401) } } }, async (request) => {
    const token = bearerToken(request);
    const account = token ? accounts.accountForToken(token) : null;
    if (!account) throw unauthorized('The bearer token is not valid.');
    return account;
  });

  app.post('/auth/logout', { schema: { response: { 204: NoContent, ...errorResponses() } } }, async (request, reply) => {
    const token = bearerToken(request);
    if (token) accounts.revokeToken(token);
    return reply.code(204).send(null);
  });

  const purge = setInterval(() => accounts.purgeExpired(), 60 * 60 * 1000).unref();
  app.addHook('onClose', async () => clearInterval(purge));
};

export async function buildAuthApp(options: AuthAppOptions & { logLevel?: string }): Promise<FastifyInstance> {
  const app = Fastify({
    logger: !options.logLevel || options.logLevel === 'silent' ? false : { level: options.logLevel },
    genReqId: () => randomUUID(),
  }).withTypeProvider<TypeBoxTypeProvider>();
  await app.register(errorEnvelope);
  await app.register(crossOrigin, { origins: options.corsOrigins ?? '*' });
  await app.register(authRoutes, { db: options.db, tokenLifetimeMs: options.tokenLifetimeMs });
  return app;
}
