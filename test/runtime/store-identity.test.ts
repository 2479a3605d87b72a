import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it, inject } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { jobsTable } from '../../src/db/jobs-table.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import { storeMeta } from '../../src/db/store-meta.js';
import { runQueueKeys, storeIdKey } from '../../src/queue/queue-keys.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { claimStoreIdentity, StoreIdentityError } from '../../src/runtime/store-identity.js';
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

const idOf = (db: Database) => storeMeta(db).get('store_id')!;
/** A run job waiting in Redis's run queue, as a launch leaves it. */
const queueJob = (id: string) => redis.rpush(runQueueKeys(prefix).wait, id);
const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error as Error);

describe('the store and the Redis prefix belong together', () => {
  it('gives each new store its own id, which the first boot keeps in Redis and later boots find again', async () => {
    const store = newStore();
    expect(idOf(store)).toMatch(/^[0-9a-f]{32}$/);
    expect(idOf(newStore())).not.toBe(idOf(store));
    await claimStoreIdentity(redis, store, { prefix });
    expect(await redis.get(storeIdKey(prefix))).toBe(idOf(store));
    await queueJob('j1');
    await claimStoreIdentity(redis, store, { prefix });
  });

  it('refuses a store that replaced the one whose jobs Redis holds, saying how to go on, and leaves Redis as it was', async () => {
    const first = newStore();
    await claimStoreIdentity(redis, first, { prefix });
    await queueJob('j1');
    const second = newStore();
    const error = await refusal(claimStoreIdentity(redis, second, { prefix }));
    expect(error).toBeInstanceOf(StoreIdentityError);
    expect(error!.message).toBe(
      `The store ${second.name} (store id ${idOf(second)}) is not the store Redis prefix "${prefix}" belongs to (store id ${idOf(first)}): ` +
        'the store was deleted, replaced or recreated while Redis kept its jobs. Restore that store (with its -wal file) and start again. ' +
        `Or, to keep this store and drop every key under "${prefix}" (its queued and running jobs included), stop every process using the prefix ` +
        `and start once with DISCARD_REDIS_OF_STORE=${idOf(first)}.`,
    );
    expect(await redis.get(storeIdKey(prefix))).toBe(idOf(first));
    expect(await redis.lrange(runQueueKeys(prefix).wait, 0, -1)).toEqual(['j1']);
    // Naming another store discards nothing.
    expect(await refusal(claimStoreIdentity(redis, second, { prefix, discard: idOf(newStore()) }))).toBeInstanceOf(StoreIdentityError);
    expect(await redis.lrange(runQueueKeys(prefix).wait, 0, -1)).toEqual(['j1']);
  });

  it('drops the prefix of the store a boot was told to discard, and takes it for the new one', async () => {
    const first = newStore();
    await claimStoreIdentity(redis, first, { prefix });
    await queueJob('j1');
    const other = `${prefix}x`;
    await redis.rpush(runQueueKeys(other).wait, 'kept');
    cleanups.push(() => void redis.del(runQueueKeys(other).wait));
    const second = newStore();
    await claimStoreIdentity(redis, second, { prefix, discard: idOf(first) });
    expect(await redis.get(storeIdKey(prefix))).toBe(idOf(second));
    expect(await redis.exists(runQueueKeys(prefix).wait)).toBe(0);
    // Another deployment's prefix that starts with this one is not this one's.
    expect(await redis.lrange(runQueueKeys(other).wait, 0, -1)).toEqual(['kept']);
    // Left set, the setting matches nothing any more.
    await claimStoreIdentity(redis, second, { prefix, discard: idOf(first) });
    expect(await redis.get(storeIdKey(prefix))).toBe(idOf(second));
  });

  it('refuses an empty store while Redis holds jobs under no store id (queued before ids were kept), until told to discard them', async () => {
    await queueJob('j1');
    const store = newStore();
    const error = await refusal(claimStoreIdentity(redis, store, { prefix }));
    expect(error!.message).toContain(`The store ${store.name} holds no job at all, while Redis prefix "${prefix}" holds queued or running jobs of a store it has no id for`);
    expect(error!.message).toContain('DISCARD_REDIS_OF_STORE=none.');
    await claimStoreIdentity(redis, store, { prefix, discard: 'none' });
    expect(await redis.exists(runQueueKeys(prefix).wait)).toBe(0);
    expect(await redis.get(storeIdKey(prefix))).toBe(idOf(store));
  });

  it('takes a prefix with jobs but no store id for a store that has jobs (a deployment upgraded to ids), and an emptied Redis for its store', async () => {
    const store = newStore();
    await jobsTable(sqliteStore<StoreSchema>(store)).insert([jobRow('j1')]);
    await queueJob('j1');
    await claimStoreIdentity(redis, store, { prefix });
    expect(await redis.get(storeIdKey(prefix))).toBe(idOf(store));
    // Redis lost its data: the boot's reconcile queues the store's jobs again.
    await redis.del(storeIdKey(prefix), runQueueKeys(prefix).wait);
    await claimStoreIdentity(redis, store, { prefix });
    expect(await redis.get(storeIdKey(prefix))).toBe(idOf(store));
  });

  it('keeps the API from starting on a store that replaced the running deployment\'s', async () => {
    const backend = await startTestBackend();
    try {
      const replaced = newStore();
      const error = await refusal(buildApp({ config: backend.config, db: replaced }));
      expect(error).toBeInstanceOf(StoreIdentityError);
      expect(error!.message).toContain(`DISCARD_REDIS_OF_STORE=${idOf(backend.db)}.`);
      // The deployment itself still starts again on its own store.
      await backend.app.close();
      const again = await buildApp({ config: backend.config, db: backend.db });
      await again.close();
    } finally {
      await backend.close();
    }
  });
});
