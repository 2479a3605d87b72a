import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { statsReader } from '../../src/stats/stats-reader.js';
import { storePool, type PoolPolicy } from '../../src/db/pool-policy.js';
import { storeUnavailableReason } from '../../src/db/store-errors.js';
import { testDatabase } from '../helpers/postgres.js';

// PostgreSQL's pools, whichever half of the suite runs (the run's cluster is there in both).
const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.end();
});
const pool = (policy: PoolPolicy, url: string) => {
  const made = storePool(policy, { connectionString: url });
  pools.push(made);
  return made;
};
const setting = async (on: pg.Pool, name: string) => (await on.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name];

describe('pool policies', () => {
  it('give each kind of use its own statement and lock limits, named in pg_stat_activity', async () => {
    const url = await testDatabase();
    const expected: Record<PoolPolicy, [statement: string, lock: string]> = {
      serving: ['5s', '4s'], auth: ['1500ms', '1500ms'], statistics: ['30s', '4s'], migration: ['0', '0'], copy: ['0', '0'],
    };
    for (const [policy, [statement, lock]] of Object.entries(expected) as Array<[PoolPolicy, [string, string]]>) {
      const made = pool(policy, url);
      expect([await setting(made, 'statement_timeout'), await setting(made, 'lock_timeout'), await setting(made, 'application_name')], policy)
        .toEqual([statement, lock, `eval-backend ${policy}`]);
    }
  });

  it('refuse a query at once, as an outage, when the statistics pool already has its queue full', async () => {
    const stats = pool('statistics', await testDatabase());
    // Both connections busy for a while, then 16 queries waiting: the next is refused.
    const busy = [0, 1].map(() => stats.query('SELECT pg_sleep(1)'));
    const waiting = Array.from({ length: 16 }, () => stats.query('SELECT 1'));
    const began = Date.now();
    const refused = await stats.query('SELECT 1').then(() => null, (error: unknown) => error);
    expect(Date.now() - began).toBeLessThan(200);
    expect(storeUnavailableReason(refused)).toBe("the pool's queue of waiting queries is full");
    await Promise.all([...busy, ...waiting]);
  });

  it('the statistics thread reads over the statistics pool', async () => {
    const url = await testDatabase({ migrated: true });
    const reader = statsReader({ engine: 'postgres', url });
    const observer = pool('serving', url);
    try {
      await reader.read('providers');
      const { rows } = await observer.query<{ name: string }>("SELECT DISTINCT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
      expect(rows.map((row) => row.name)).toContain('eval-backend statistics');
    } finally {
      await reader.close();
    }
  });
});
