import Fastify from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TRANSACTION_ATTEMPTS, writeTransaction, type BackendStore } from '../../src/db/dialect.js';
import errorEnvelope from '../../src/http/error-envelope.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';

const stores = engineStores();

const seed = (store: BackendStore, keys: string[]) => store.db.insertInto('store_meta').values(keys.map((key) => ({ key, value: '0' }))).execute();
const bump = (trx: Parameters<Parameters<typeof writeTransaction<never, unknown>>[1]>[0], key: string, value: string) =>
  (trx as unknown as BackendStore['db']).updateTable('store_meta').set({ value }).where('key', '=', key).execute();

/** Resolves once `count` callers have arrived, or after `limitMs` (SQLite runs one write transaction at a time: the second never arrives while the first waits). */
function barrier(count: number, limitMs: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((done) => (open = done));
  return async () => {
    arrived += 1;
    if (arrived >= count) open();
    await Promise.race([opened, sleep(limitMs)]);
  };
}

describe.each(ENGINES)('write transactions that race on %s', (engine) => {
  it('two that lock the same rows in opposite orders both commit: the deadlock\'s loser runs again', async () => {
    const store = await stores.fresh(engine);
    await seed(store, ['race:a', 'race:b']);
    const bothHoldOne = barrier(2, 500);
    let runs = 0;
    const crosswise = (first: string, second: string, value: string) => writeTransaction(store, async (trx) => {
      runs += 1;
      await bump(trx as never, first, value);
      await bothHoldOne();
      await bump(trx as never, second, value);
      return value;
    });
    expect(await Promise.all([crosswise('race:a', 'race:b', 'one'), crosswise('race:b', 'race:a', 'two')])).toEqual(['one', 'two']);
    // On PostgreSQL the server failed one of them (40P01), which ran a second time.
    expect(runs).toBe(engine === 'postgres' ? 3 : 2);
    const values = await store.db.selectFrom('store_meta').select(['key', 'value']).where('key', 'in', ['race:a', 'race:b']).execute();
    expect(new Set(values.map((row) => row.value)).size).toBe(1);
  });

  it('a transaction that loses its race every time gives up after a few runs and answers 503 store_busy with Retry-After', async () => {
    const store = await stores.fresh(engine);
    let runs = 0;
    const app = Fastify();
    await app.register(errorEnvelope);
    app.post('/always-loses', async () => writeTransaction(store, async () => {
      runs += 1;
      // What the server answers the loser of a deadlock.
      throw Object.assign(new pg.DatabaseError('deadlock detected', 0, 'error'), { code: '40P01' });
    }));
    try {
      const began = Date.now();
      const answer = await app.inject({ method: 'POST', url: '/always-loses' });
      expect(answer.statusCode).toBe(503);
      expect(answer.json().error.code).toBe('store_busy');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      // SQLite has no such race (one writer at a time): nothing runs again there.
      expect(runs).toBe(engine === 'postgres' ? TRANSACTION_ATTEMPTS : 1);
      expect(Date.now() - began).toBeLessThan(1000);
    } finally {
      await app.close();
    }
  });

  it('a unique key another write took answers 503 store_busy with Retry-After, never a 500', async () => {
    const store = await stores.fresh(engine);
    await seed(store, ['taken']);
    const app = Fastify();
    await app.register(errorEnvelope);
    app.post('/meta', async () => {
      await store.db.insertInto('store_meta').values({ key: 'taken', value: '1' }).execute();
      return { ok: true };
    });
    try {
      const answer = await app.inject({ method: 'POST', url: '/meta' });
      expect(answer.statusCode).toBe(503);
      expect(answer.json().error).toEqual({ code: 'store_busy', message: expect.stringContaining('store_meta') });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});
