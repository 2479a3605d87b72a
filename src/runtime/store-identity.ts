import type { Redis } from 'ioredis';
import type { BackendStore } from '../db/dialect.js';
import { storeMeta } from '../db/store-meta.js';
import { runQueueKeys, storeIdKey } from '../queue/queue-keys.js';

/** What a refusal names, and DISCARD_REDIS_OF_STORE accepts, for jobs in Redis without a store id. */
const UNKNOWN_STORE = 'none';

export class StoreIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreIdentityError';
  }
}

export interface StoreIdentityOptions {
  /** The deployment's Redis key prefix. */
  prefix: string;
  /** The store as a refusal names it to the operator: the SQLite file, or the PostgreSQL database. */
  name: string;
  /**
   * DISCARD_REDIS_OF_STORE: the store id a refused boot named (or UNKNOWN_STORE). When Redis's
   * prefix belongs to that store, every key under the prefix is deleted and the prefix taken
   * for this store; once taken, it matches nothing more.
   */
  discard?: string | null;
}

/**
 * Checks, before the boot reconciles anything, that the store is the one whose jobs Redis
 * holds under the prefix. Each store has an id written when it was created (migration 0083),
 * which the first boot keeps in Redis. A store deleted and created again empty, or replaced
 * by another file, while Redis kept the old one's jobs, would otherwise be served as if
 * nothing had happened: runs and catalog gone, and Redis handing out jobs the store has no
 * row for. Refused with a StoreIdentityError saying what to do, never guessed:
 * - Redis names another store id;
 * - Redis names none but holds queued, held or running jobs, and the store has no job at all.
 *
 * Redis that names none and holds no jobs (a new deployment, or a Redis that lost its data,
 * which the boot's reconcile refills from the store) is taken for this store.
 */
export async function claimStoreIdentity(
  redis: Redis,
  store: BackendStore,
  { prefix, name, discard = null }: StoreIdentityOptions,
): Promise<void> {
  const storeId = await storeMeta(store).get('store_id');
  if (storeId === null) throw new Error(`${name} has no store id; its migrations did not run.`);
  const key = storeIdKey(prefix);
  for (let attempt = 0; ; attempt += 1) {
    const owner = (await redis.get(key)) ?? ((await holdsJobs(redis, prefix)) && !(await storeHasJobs(store)) ? UNKNOWN_STORE : null);
    if (owner === storeId) return;
    if (owner !== null) {
      if (owner !== discard) throw new StoreIdentityError(refusal(name, storeId, prefix, owner));
      await deletePrefix(redis, prefix);
      discard = null;
    }
    // Another process booting on the same store at this moment writes the same id; one on
    // another store is found on the second look.
    if ((await redis.set(key, storeId, 'NX')) !== null || attempt > 0) return;
  }
}

/** Queued, held (pending) or claimed run jobs, the run queue's lists and sets. */
async function holdsJobs(redis: Redis, prefix: string): Promise<boolean> {
  const keys = runQueueKeys(prefix);
  return (await redis.exists(keys.wait, keys.active, keys.pendingGroups)) > 0;
}

async function storeHasJobs({ db }: BackendStore): Promise<boolean> {
  return (await db.selectFrom('jobs').select('id').limit(1).executeTakeFirst()) !== undefined;
}

async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  // REDIS_PREFIX holds no glob characters (src/config.ts).
  for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 }) as AsyncIterable<string[]>) {
    if (keys.length > 0) await redis.unlink(...keys);
  }
}

function refusal(file: string, storeId: string, prefix: string, owner: string): string {
  const whose = owner === UNKNOWN_STORE
    ? `holds no job at all, while Redis prefix "${prefix}" holds queued or running jobs of a store it has no id for`
    : `(store id ${storeId}) is not the store Redis prefix "${prefix}" belongs to (store id ${owner})`;
  return (
    `The store ${file} ${whose}: the store was deleted, replaced or recreated while Redis kept its jobs. ` +
    'Restore that store (with its -wal file) and start again. Or, to keep this store and drop every key under ' +
    `"${prefix}" (its queued and running jobs included), stop every process using the prefix and start once with ` +
    `DISCARD_REDIS_OF_STORE=${owner}.`
  );
}
