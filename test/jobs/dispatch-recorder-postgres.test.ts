import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresPool, type BackendStore } from '../../src/db/dialect.js';
import { jobsTable } from '../../src/db/jobs-table.js';
import { migratePostgres } from '../../src/db/migrate-postgres.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { dispatchRecorder } from '../../src/jobs/dispatch-recorder.js';
import { databaseOutage, dropTestDatabase, testDatabase } from '../helpers/postgres.js';
import { jobRow } from '../helpers/temp-store.js';
import { until } from '../helpers/until.js';

/** Claims' writes to PostgreSQL: no thread, one statement per batch, and a store outage outlived. */
let url: string;
let pool: pg.Pool;
let store: BackendStore;
/** Every claim statement the store ran through, with how many claims it carried. */
const claimWrites: number[] = [];
const isClaimWrite = (sql: string) => /^UPDATE jobs SET state = CASE/.test(sql);

beforeAll(async () => {
  url = await testDatabase();
  pool = postgresPool({ connectionString: url, connectionTimeoutMillis: 2000 });
  await migratePostgres(pool);
  store = {
    engine: 'postgres',
    db: new Kysely<StoreSchema>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        if (event.level === 'query' && isClaimWrite(event.query.sql)) claimWrites.push((event.query.parameters[0] as unknown[]).length);
      },
    }),
  };
}, 60_000);
afterAll(async () => {
  await store?.db.destroy();
  await dropTestDatabase(url);
});

describe('claims copied to PostgreSQL behind their answers', () => {
  it('writes the claims of a burst in a few statements, not one per claim', async () => {
    const jobs = jobsTable(store);
    const seqs = await jobs.insert(Array.from({ length: 1200 }, (_, i) => jobRow(`burst-${i}`)));
    const recorder = dispatchRecorder(store, undefined, (error) => { throw error; });
    claimWrites.length = 0;
    try {
      seqs.forEach((seq, i) => recorder.record(`burst-${i}`, seq, `hash-${i}`));
      expect(await recorder.settled(15_000)).toBe(true);
    } finally {
      await recorder.close();
    }
    // 512 a batch at most, the rest within the flush window.
    expect(claimWrites).toEqual([512, 512, 176]);
    const rows = await store.db.selectFrom('jobs').select(['state', 'token_hash']).where('id', 'like', 'burst-%').execute();
    expect(rows.every((row) => row.state === 'dispatched')).toBe(true);
    expect(new Set(rows.map((row) => row.token_hash)).size).toBe(1200);
  }, 60_000);

  it('holds a batch across a store outage, writes it once the store is back, and writes no claim twice', async () => {
    const jobs = jobsTable(store);
    const seqs = await jobs.insert(Array.from({ length: 30 }, (_, i) => jobRow(`outage-${i}`)));
    const errors: string[] = [];
    let resumed = 0;
    const recorder = dispatchRecorder(store, undefined, (error) => errors.push(String(error)), undefined, { onResumed: () => (resumed += 1) });
    claimWrites.length = 0;
    const down = await databaseOutage(url);
    try {
      seqs.forEach((seq, i) => recorder.record(`outage-${i}`, seq, `hash-${i}`));
      // The store refuses: said once, and the claims still answer for their tokens.
      await until(() => errors.length > 0, 15_000, 'the refused write reported');
      expect(await recorder.settled(200)).toBe(false);
      expect(recorder.pendingTokenHash('outage-7')).toBe('hash-7');
    } finally {
      await down.heal();
    }
    expect(await recorder.settled(30_000)).toBe(true);
    await recorder.close();
    expect(errors).toEqual([expect.stringMatching(/^Error: PostgreSQL refuses claim writes/)]);
    expect(resumed).toBe(1);
    expect(recorder.pendingTokenHash('outage-7')).toBeUndefined();
    const rows = await store.db.selectFrom('jobs').select(['id', 'state', 'token_hash as tokenHash']).where('id', 'like', 'outage-%').orderBy('seq').execute();
    expect(rows).toEqual(Array.from({ length: 30 }, (_, i) => ({ id: `outage-${i}`, state: 'dispatched', tokenHash: `hash-${i}` })));
    // Refused while the store was down (no connection to be had), then the one batch went through once.
    expect(claimWrites).toEqual([30]);
  }, 90_000);
});
