import { createHash } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Job } from 'bullmq';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { BACKGROUND_QUEUES, RUN_QUEUE } from '../../queue/queue-keys.js';
import { authStoreUnavailable, forbidden, HttpError, methodNotAllowed, tooManyRequests } from '../../errors.js';
import { retryAfterSeconds } from '../../accounts/verify-token.js';
import { relayedClientHeaders } from '../../auth/relayed-client.js';
import { MINUTE, SECOND } from '../../time.js';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * Queues whose jobs the board may retry, clean or remove: re-running one of their jobs is
 * what asking for it again through the API would do. Every other queue is read-only on the
 * board (its actions are refused with 405): run jobs move only through our own scripts, a
 * publish or probe job's row in SQLite would no longer match a BullMQ job run twice, and an
 * ingest scan is asked for through `POST /ingest`, which validates what it scans.
 */
const ACTIONABLE = new Set<string>([BACKGROUND_QUEUES.snapshot, BACKGROUND_QUEUES.billedRates]);

/**
 * The board's calls that write job data of the caller's choosing (add a job, edit a job's
 * data): no queue takes them, since nothing on the board validates that data.
 */
const WRITES_JOB_DATA = new Set([`${DASHBOARD_PATH}/api/queues/:queueName/add`, `${DASHBOARD_PATH}/api/queues/:queueName/:jobId/update-data`]);

/** How long a checked login is trusted before the auth service is asked again. */
const LOGIN_CACHE_MS = 1 * MINUTE;
const LOGIN_TIMEOUT_MS = 3 * SECOND;

/**
 * QUEUE_DASHBOARD=true: the maintained BullMQ board over every queue of the deployment, at
 * /admin/queues. A browser cannot send our bearer token on navigation, so it asks for HTTP
 * Basic credentials, checked by logging in to the auth service (the token that login issues
 * is logged out at once).
 */
async function queueDashboard(app: FastifyInstance) {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: [...app.deploymentQueues.queues].map(([name, queue]) => {
      const options = { readOnlyMode: !ACTIONABLE.has(name), allowRetries: ACTIONABLE.has(name) };
      return name === RUN_QUEUE ? new RunQueueAdapter(queue, options) : new BullMQAdapter(queue, options);
    }),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'eval-backend queues' } },
  });

  const { authUrl, authRelayToken, operatorAccounts } = app.config;
  if (!authRelayToken) {
    app.log.warn('queue dashboard: AUTH_RELAY_TOKEN is not set, so the auth service throttles every dashboard login as coming from this host');
  }
  const checkLogin = basicLoginChecker(authUrl!, authRelayToken);
  await app.register(async (board) => {
    // Answered here rather than thrown: bull-board's routes render errors in a shape of their own.
    board.addHook('onRequest', async (request, reply) => {
      let username: string | null;
      try {
        username = await checkLogin(request);
      } catch (error) {
        if (error instanceof HttpError) return answer(reply, error);
        throw error;
      }
      if (username === null) return refuse(reply);
      // The board is an operator's tool: with OPERATOR_ACCOUNTS set, only those accounts get in.
      if (operatorAccounts.size > 0 && !operatorAccounts.has(username.toLowerCase())) {
        return answer(reply, forbidden(`The queue dashboard is for operators, and ${username} is not among OPERATOR_ACCOUNTS.`));
      }
      // By the route matched, so no spelling of the path (`%61dd`, a trailing slash) slips past.
      if (WRITES_JOB_DATA.has(request.routeOptions.url ?? '')) {
        return answer(reply, methodNotAllowed('The queue dashboard adds no jobs and edits no job data; ask for the work through the API.'));
      }
    });
    await board.register(serverAdapter.registerPlugin(), { prefix: DASHBOARD_PATH });
  });
}

/**
 * The run queue as the board shows it. Its wait list may still hold the entries of jobs a
 * cancel left behind (cancel-jobs.lua) until a claim drops them. The deployment's run queue
 * counts without them already; the board also lists the waiting jobs without them.
 */
class RunQueueAdapter extends BullMQAdapter {
  override async getJobs(statuses: Parameters<BullMQAdapter['getJobs']>[0], start?: number, end?: number): Promise<Job[]> {
    const jobs = await super.getJobs(statuses, start, end);
    // A left-behind entry's job has finished; it is listed once, where it finished.
    const waitingOnly = statuses.length === 1 && statuses[0] === 'waiting';
    const seen = new Set<string | undefined>();
    return jobs.filter((job) => {
      if (!job || seen.has(job.id) || (waitingOnly && job.finishedOn)) return false;
      seen.add(job.id);
      return true;
    });
  }
}

function answer(reply: FastifyReply, error: HttpError) {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(error.statusCode).send({ error: { code: error.code, message: error.message } });
}

function refuse(reply: FastifyReply) {
  return reply
    .code(401)
    .header('www-authenticate', 'Basic realm="eval-backend queues", charset="UTF-8"')
    .send({ error: { code: 'unauthorized', message: 'The queue dashboard needs the username and password of an account (HTTP Basic).' } });
}

/**
 * Checks `Authorization: Basic` credentials with a login at the auth service, caching a
 * success briefly. The login names the browser's address, vouched for with the relay token,
 * so the auth service throttles guesses by where they come from rather than by this host.
 */
function basicLoginChecker(authUrl: string, relayToken: string | null) {
  // Keyed by a hash, so the cache never holds a usable password.
  const trusted = new Map<string, number>();
  /** The username of a right login, else null; throws 429 while the auth service refuses to check logins from this address. */
  return async (request: FastifyRequest): Promise<string | null> => {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match) return null;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return null;
    const username = decoded.slice(0, colon);
    const key = createHash('sha256').update(decoded).digest('base64url');
    const now = Date.now();
    if ((trusted.get(key) ?? 0) > now) return username;
    const login = await fetch(`${authUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(relayToken ? relayedClientHeaders(relayToken, request.ip) : {}) },
      body: JSON.stringify({ username, password: decoded.slice(colon + 1) }),
      signal: AbortSignal.timeout(LOGIN_TIMEOUT_MS),
    }).catch(() => null);
    if (login?.status === 429) throw await throttled(login);
    if (login?.status === 503) {
      await login.body?.cancel().catch(() => {});
      throw authStoreUnavailable(retryAfterSeconds(login));
    }
    if (!login?.ok) return null;
    const { token } = (await login.json().catch(() => ({}))) as { token?: unknown };
    if (typeof token === 'string') {
      void fetch(`${authUrl}/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(LOGIN_TIMEOUT_MS) }).catch(() => undefined);
    }
    if (trusted.size > 1000) trusted.clear();
    trusted.set(key, now + LOGIN_CACHE_MS);
    return username;
  };
}

/** The auth service's 429 passed on: its message and its Retry-After. */
async function throttled(login: Response) {
  const body = (await login.json().catch(() => ({}))) as { error?: { message?: unknown } };
  const message = typeof body.error?.message === 'string' ? body.error.message : 'Too many failed logins from this address; try again later.';
  return tooManyRequests(message, Math.max(1, Number(login.headers.get('retry-after')) || 60));
}

export default fp(queueDashboard, { name: 'queue-dashboard', fastify: '5.x', dependencies: ['operations'] });
