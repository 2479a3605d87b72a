import { Redis, type RedisOptions } from 'ioredis';
import { isFromStore } from '../db/store-errors.js';
import { SECOND } from '../time.js';
import { reconnectDelay, redisOptionsFromUrl } from './managed-redis.js';

/** What the connection helpers log through (a pino logger fits). */
export interface RedisLog {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

/**
 * A command that gets no answer this long fails (ms). A dead Redis closes its socket and
 * fails every command at once; this bounds a Redis that hangs without closing.
 */
export const COMMAND_TIMEOUT_MS = 5 * SECOND;

/**
 * Options for connections that serve HTTP requests: while Redis is away a command fails
 * at once instead of waiting in ioredis's offline queue, so the request answers 503
 * `queue_unavailable` (see `isRedisUnavailable`), and the connection keeps reconnecting.
 */
export function failFastOptions(url: string): RedisOptions {
  return {
    ...redisOptionsFromUrl(url),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: reconnectDelay,
  };
}

/**
 * A fail-fast connection (see `failFastOptions`) that reports its outages to `log` once
 * each (lost, then back) instead of one line per reconnect attempt, and resolves once it
 * first answers: without an offline queue, a command sent before that would fail.
 */
export async function failFastConnection(url: string, name: string, log: RedisLog, extra: RedisOptions = {}): Promise<Redis> {
  const client = new Redis({ ...failFastOptions(url), ...extra, lazyConnect: true });
  reportOutages(client, name, log);
  await client.connect();
  return client;
}

/** How often one connection may log a failure while it stays down. */
const OUTAGE_LOG_INTERVAL_MS = 30 * SECOND;

/**
 * Logs the first error of an outage and the recovery (at most one line per 30 s while it
 * lasts), and so never lets an ioredis "Unhandled error event" reach stderr. Works for an
 * ioredis client and for a BullMQ Queue or Worker, which forward their connections' errors.
 */
export function reportOutages(client: { on(event: string, listener: (...args: never[]) => void): unknown }, name: string, log: RedisLog): void {
  let down = false;
  let loggedAt = 0;
  client.on('error', (error: Error) => {
    if (down && Date.now() - loggedAt < OUTAGE_LOG_INTERVAL_MS) return;
    down = true;
    loggedAt = Date.now();
    log.warn({ connection: name, err: error }, `Redis connection ${name} failed; reconnecting`);
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ connection: name }, `Redis connection ${name} is back`);
  });
}

/** BullMQ producers (`Queue`): an `add` while Redis is away fails at once rather than waiting for it (BullMQ's fail-fast pattern). */
export function queueProducerConnection(url: string) {
  return { ...redisOptionsFromUrl(url), enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: reconnectDelay };
}

const UNAVAILABLE_MESSAGES = [
  "Stream isn't writeable",
  'Connection is closed',
  'Command timed out',
  'Reached the max retries per request limit',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
];

/**
 * True when `error` (or anything in its cause chain) says Redis could not be reached, as
 * opposed to a command Redis refused. An error from the PostgreSQL store is never Redis's,
 * however alike its socket message reads (src/db/store-errors.ts classifies by origin).
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (isFromStore(error)) return false;
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (current.name === 'MaxRetriesPerRequestError' || current.name === 'ConnectionClosedError') return true;
    if (UNAVAILABLE_MESSAGES.some((text) => current instanceof Error && current.message.includes(text))) return true;
  }
  return false;
}

/** How long one Redis-backed resource may take to close before it is dropped (ms). */
export const CLOSE_LIMIT_MS = SECOND;

/**
 * Closes a Redis-backed resource gracefully when Redis answers, and drops it (`force`)
 * when the graceful close fails or takes longer than `limitMs`: a dead Redis never holds
 * shutdown. Never throws.
 */
export async function closeWithin(close: () => Promise<unknown>, force: () => unknown, limitMs = CLOSE_LIMIT_MS): Promise<void> {
  if (!(await settlesWithin(close, limitMs))) await settlesWithin(async () => force(), limitMs);
}

/** True when `step` resolved within `limitMs`; false when it failed or is still running (it is left to finish). */
export async function settlesWithin(step: () => Promise<unknown>, limitMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      step().then(() => true, () => false),
      new Promise<boolean>((done) => (timer = setTimeout(() => done(false), limitMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Closes BullMQ queues (or workers) together, each within CLOSE_LIMIT_MS. */
export async function closeQueues(...queues: Array<{ close(): Promise<unknown>; disconnect(): Promise<unknown> }>): Promise<void> {
  await Promise.all(queues.map((queue) => closeWithin(() => queue.close(), () => queue.disconnect())));
}

/** QUIT when connected (pending replies arrive first), else drop the socket at once. */
export function quitConnection(client: Redis): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    return Promise.resolve();
  }
  return closeWithin(() => client.quit(), () => client.disconnect());
}
