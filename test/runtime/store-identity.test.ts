import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it, inject } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { jobsTable } from '../../src/db/jobs-table.js';
import { sqliteStore, type BackendStore } from '../../src/db/dialect.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { storeMeta } from '../../src/db/store-meta.js';
import { runQueueKeys, storeIdKey } from '../../src/queue/queue-keys.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { claimStoreIdentity, StoreIdentityError } from '../../src/runtime/store-identity.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';
import { jobRow } from '../helpers/temp-store.js';
import { startTestBackend } from '../helpers/test-backend.js';

const redis = new Redis(redisOptionsFromUrl(inject('redisUrl')));
afterAll(() => redis.quit());

let prefix = '';
const cleanups: Array<() => void> = [];
beforeEach(() => {
  prefix = `si${randomUUID().slice(0, 8)}`;
});
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A new store, as a deployment's first start (or a deleted one's re-creation) makes it. */
function newStore(): Database {
  const dir = mkdtempSync(join(tmpdir(), 'evb-identity-'));
  const db = openDatabase(join(dir, 'backend.sqlite'));
  cleanups.push(() => (db.close(), rmSync(dir, { recursive: true, force: true })));
  return db;
}

const storeOf = (db: Database): BackendStore => sqliteStore<StoreSchema>(db);
const idOf = async (db: Database) => (await storeMeta(storeOf(db)).get('store_id'))!;
/** The boot's claim for the store in `db`, named by its file as the API names it. */
const claim = (db: Database, options: { discard?: string | null } = {}) => claimStoreIdentity(redis, storeOf(db), { prefix, name: db.name, ...options });
/** A run job waiting in Redis's run queue, as a launch leaves it. */
const queueJob = (id: string) => redis.rpush(runQueueKeys(prefix).wait, id);
const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error as Error);

describe('the store and the Redis prefix belong together', () => {
  it('gives each new store its own id, which the first boot keeps in Redis and later boots find again', async () => {
    const store = newStore();
    expect(await idOf(store)).toMatch(/^[0-9a-f]{32}$/);
    expect(await idOf(newStore())).not.toBe(await idOf(store));
    await claim(store);
    expect(await redis.get(storeIdKey(prefix))).toBe(await idOf(store));
    await queueJob('j1');
    await claim(store);
  });

  it('refuses a store that replaced the one whose jobs Redis holds, saying how to go on, and leaves Redis as it was', async () => {
    const first = newStore();
    await claim(first);
    await queueJob('j1');
    const second = newStore();
    const error = await refusal(claim(second));
    expect(error).toBeInstanceOf(StoreIdentityError);
    expect(error!.message).toBe(
      `The store ${second.name} (store id ${await idOf(second)}) is not the store Redis prefix "${prefix}" belongs to (store id ${await idOf(first)}): ` +
        'the store was deleted, replaced or recreated while Redis kept its jobs. Restore that store (with its -wal file) and start again. ' +
        `Or, to keep this store and drop every key under "${prefix}" (its queued and running jobs included), stop every process using the prefix ` +
        `and start once with DISCARD_REDIS_OF_STORE=${await idOf(first)}.`,
    );
    expect(await redis.get(storeIdKey(prefix))).toBe(await idOf(first));
    expect(await redis.lrange(runQueueKeys(prefix).wait, 0, -1)).toEqual(['j1']);
    // Naming another store discards nothing.
    expect(await refusal(claim(second, { discard: await idOf(newStore()) }))).toBeInstanceOf(StoreIdentityError);
    expect(await redis.lrange(runQueueKeys(prefix).wait, 0, -1)).toEqual(['j1']);
  });

  it('drops the prefix of the store a boot was told to discard, and takes it for the new one', async () => {
    const first = newStore();
    await claim(first);
    await queueJob('j1');
    const other = `${prefix}x`;
    await redis.rpush(runQueueKeys(other).wait, 'kept');
    cleanups.push(() => void redis.del(runQueueKeys(other).wait));
    const second = newStore();
    await claim(second, { discard: await idOf(first) });
    expect(await redis.get(storeIdKey(prefix))).toBe(await idOf(second));
    expect(await redis.exists(runQueueKeys(prefix).wait)).toBe(0);
    // Another deployment's prefix that starts with this one is not this one's.
    expect(await redis.lrange(runQueueKeys(other).wait, 0, -1)).toEqual(['kept']);
    // Left set, the setting matches nothing any more.
    await claim(second, { discard: await idOf(first) });
    expect(await redis.get(storeIdKey(prefix))).toBe(await idOf(second));
  });

  it('refuses an empty store while Redis holds jobs under no store id (queued before ids were kept), until told to discard them', async () => {
    await queueJob('j1');
    const store = newStore();
    const error = await refusal(claim(store));
    expect(error!.message).toContain(`The store ${store.name} holds no job at all, while Redis prefix "${prefix}" holds queued or running jobs of a store it has no id for`);
    expect(error!.message).toContain('DISCARD_REDIS_OF_STORE=none.');
    await claim(store, { discard: 'none' });
    expect(await redis.exists(runQueueKeys(prefix).wait)).toBe(0);
    expect(await redis.get(storeIdKey(prefix))).toBe(await idOf(store));
  });

  it('takes a prefix with jobs but no store id for a store that has jobs (a deployment upgraded to ids), and an emptied Redis for its store', async () => {
    const store = newStore();
    await jobsTable(sqliteStore<StoreSchema>(store)).insert([jobRow('j1')]);
    await queueJob('j1');
    await claim(store);
    expect(await redis.get(storeIdKey(prefix))).toBe(await idOf(store));
    // Redis lost its data: the boot's reconcile queues the store's jobs again.
    await redis.del(storeIdKey(prefix), runQueueKeys(prefix).wait);
    await claim(store);
    expect(await redis.get(storeIdKey(prefix))).toBe(await idOf(store));
  });

  it('keeps the API from starting on a store that replaced the running deployment\'s', async () => {
    const backend = await startTestBackend();
    try {
      const replaced = newStore();
      const error = await refusal(buildApp({ config: backend.config, db: replaced }));
      expect(error).toBeInstanceOf(StoreIdentityError);
      expect(error!.message).toContain(`DISCARD_REDIS_OF_STORE=${await storeMeta(backend.store).get('store_id')}.`);
      // The deployment itself still starts again on its own store.
      await backend.app.close();
      const again = await buildApp({ config: backend.config, db: backend.app.sqlite, store: backend.store });
      await again.close();
    } finally {
      await backend.close();
    }
  });
});

const stores = engineStores();

describe.each(ENGINES)('the store identity on %s', (engine) => {
  it('is kept in the store, claimed for an unowned prefix, and another store of the engine is refused', async () => {
    const store = await stores.fresh(engine);
    const id = await storeMeta(store).get('store_id');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    await claimStoreIdentity(redis, store, { prefix, name: 'first' });
    expect(await redis.get(storeIdKey(prefix))).toBe(id);
    const other = await stores.fresh(engine);
    const error = await refusal(claimStoreIdentity(redis, other, { prefix, name: 'second' }));
    expect(error).toBeInstanceOf(StoreIdentityError);
    expect(error!.message).toContain(`DISCARD_REDIS_OF_STORE=${id}.`);
  });

  it('takes a prefix holding jobs under no id only for a store that has jobs', async () => {
    await queueJob('j1');
    const empty = await stores.fresh(engine);
    expect(await refusal(claimStoreIdentity(redis, empty, { prefix, name: 'empty' }))).toBeInstanceOf(StoreIdentityError);
    const withJobs = await stores.fresh(engine);
    await withJobs.db.insertInto('jobs').values({
      id: 'j1', account_id: 'a', origin: null, test_case_slug: 'carom', test_case_version: 'v1.1.0', variant: 'base', harness_slug: 'codex',
      model_id: 'm', provider: null, engine: null, test_type: 'end-to-end', gg_config_id: null, gg_preset: null, request: '{}', state: 'queued',
      token_hash: null, record_id: null, detail: null, enqueued_at: '2026-11-26T00:00:00.000Z', dispatched_at: null, started_at: null,
      finished_at: null, gg_models: null,
    }).execute();
    await claimStoreIdentity(redis, withJobs, { prefix, name: 'with jobs' });
    expect(await redis.get(storeIdKey(prefix))).toBe(await storeMeta(withJobs).get('store_id'));
  });
});
