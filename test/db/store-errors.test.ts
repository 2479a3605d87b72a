import { readFile } from 'node:fs/promises';
import Fastify from 'fastify';
import pg from 'pg';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/db/dialect.js';
import { storePool } from '../../src/db/pool-policy.js';
import { classifyStoreError, isFromStore, storeUnavailableReason } from '../../src/db/store-errors.js';
import errorEnvelope from '../../src/http/error-envelope.js';
import { isRedisUnavailable } from '../../src/redis/redis-connections.js';
import { statsReader } from '../../src/stats/stats-reader.js';
import { sql } from 'kysely';

const serverError = (code: string) => Object.assign(new pg.DatabaseError('terminating connection', 0, 'error'), { code });

/** What a query over a serving pool to `connectionString` fails with. */
async function storeFailure(connectionString: string): Promise<unknown> {
  const pool = storePool('serving', { connectionString });
  try {
    return await pool.query('SELECT 1').then(() => null, (error: unknown) => error);
  } finally {
    await pool.end();
  }
}

describe('classifyStoreError', () => {
  it('takes the server ending or refusing sessions, and statement and lock timeouts, for an outage', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300', '57014', '55P03']) expect(storeUnavailableReason(serverError(code)), code).toBe(code);
    // A database not accepting connections (ALLOW_CONNECTIONS false, a failover under way) says
    // 55000 at FATAL; the same code at ERROR is a statement's own failure.
    const refused = Object.assign(serverError('55000'), { severity: 'FATAL' });
    expect(storeUnavailableReason(refused)).toBe('55000');
    expect(storeUnavailableReason(Object.assign(serverError('55000'), { severity: 'ERROR' }))).toBeNull();
  });

  it('names unique violations, deadlocks, serialization failures, a full disk and text PostgreSQL cannot keep', () => {
    expect(classifyStoreError(serverError('23505'))).toEqual({ kind: 'unique', reason: '23505' });
    expect(classifyStoreError(serverError('40P01'))).toEqual({ kind: 'deadlock', reason: '40P01' });
    expect(classifyStoreError(serverError('40001'))).toEqual({ kind: 'serialization', reason: '40001' });
    expect(classifyStoreError(serverError('53100'))).toEqual({ kind: 'full', reason: '53100' });
    expect(classifyStoreError(serverError('22021'))).toEqual({ kind: 'bad_text', reason: '22021' });
    // Also when a service wrapped it.
    expect(classifyStoreError(new Error('storing the run failed', { cause: serverError('40P01') }))?.kind).toBe('deadlock');
  });

  it('takes a refused or missing server socket met by a store pool for an outage, and marks it as the store\'s', async () => {
    const refused = await storeFailure('postgres://nobody@127.0.0.1:9/none');
    expect(storeUnavailableReason(refused)).toBe('ECONNREFUSED');
    expect(isFromStore(refused)).toBe(true);
    const missing = await storeFailure('postgres://nobody@/none?host=/nonexistent-socket-folder');
    expect(storeUnavailableReason(missing)).toBe('ENOENT');
  });

  it('leaves alone query errors, file errors and other services\' connection errors', async () => {
    for (const code of ['42P01', '22P02']) expect(classifyStoreError(serverError(code)), code).toBeNull();
    expect(storeUnavailableReason(await readFile('/nonexistent-file').catch((error: unknown) => error))).toBeNull();
    // fetch wraps the socket's error in its cause: an upstream HTTP service down is no store outage.
    expect(storeUnavailableReason(await fetch('http://127.0.0.1:9/').catch((error: unknown) => error))).toBeNull();
    // Nor is a Redis connection refused, whose socket error reads the same as PostgreSQL's.
    const redis = new Redis({ host: '127.0.0.1', port: 9, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    const redisRefused = await redis.connect().catch((error: unknown) => error);
    redis.disconnect();
    expect(redisRefused).toBeInstanceOf(Error);
    expect(storeUnavailableReason(redisRefused)).toBeNull();
    expect(storeUnavailableReason(new Error('Connection terminated unexpectedly'))).toBeNull();
    expect(storeUnavailableReason('ECONNREFUSED')).toBeNull();
  });

  it('a PostgreSQL outage answers 503 store_unavailable with Retry-After, never queue_unavailable; a Redis outage still answers queue_unavailable', async () => {
    const store = postgresStore(storePool('serving', { connectionString: 'postgres://nobody@127.0.0.1:9/none' }));
    const redis = new Redis({ host: '127.0.0.1', port: 9, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    const app = Fastify();
    await app.register(errorEnvelope);
    app.get('/store', async () => sql`SELECT 1`.execute(store.db));
    app.get('/queue', async () => redis.get('k'));
    try {
      const fromStore = await app.inject('/store');
      expect(fromStore.statusCode).toBe(503);
      expect(fromStore.json().error.code).toBe('store_unavailable');
      expect(Number(fromStore.headers['retry-after'])).toBeGreaterThan(0);
      const fromQueue = await app.inject('/queue');
      expect(fromQueue.statusCode).toBe(503);
      expect(fromQueue.json().error.code).toBe('queue_unavailable');
      expect(isRedisUnavailable(await store.db.selectNoFrom(sql`1`.as('one')).execute().catch((error: unknown) => error))).toBe(false);
    } finally {
      await app.close();
      await store.db.destroy();
      redis.disconnect();
    }
  });

  it('a statistics read over a PostgreSQL that is down answers 503 store_unavailable, though its error crossed from the thread', async () => {
    const reader = statsReader({ engine: 'postgres', url: 'postgres://nobody@127.0.0.1:9/none' });
    const app = Fastify();
    await app.register(errorEnvelope);
    app.get('/stats', async () => reader.read('providers'));
    try {
      const answer = await app.inject('/stats');
      expect(answer.statusCode).toBe(503);
      expect(answer.json().error.code).toBe('store_unavailable');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await app.close();
      await reader.close();
    }
  });
});
