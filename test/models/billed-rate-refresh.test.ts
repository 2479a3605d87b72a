import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import { expect, it, inject } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { openDatabase } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { billedRateRefreshProcessor } from '../../src/models/billed-rate-refresh.js';
import { modelCatalogStore } from '../../src/models/model-catalog-store.js';
import { bullConnection, freeLoopbackPort } from '../../src/redis/managed-redis.js';

it('logs the models whose billed rate could not be refreshed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'evb-rates-'));
  const db = openDatabase(join(dir, 'backend.sqlite'));
  try {
    const store = sqliteStore<StoreSchema>(db);
    await modelCatalogStore(store).create({ slug: 'openai/gpt-5' });
    // Nothing listens there: every lookup fails.
    const config = { ...loadConfig({ ROUTER_BASE_URL: `http://127.0.0.1:${await freeLoopbackPort()}`, ROUTER_API_KEY: 'k', LOG_LEVEL: 'silent' }), redisUrl: inject('redisUrl') };
    const warnings: Array<{ object: object; message: string }> = [];
    const log = { info() {}, error() {}, warn: (object: object, message: string) => void warnings.push({ object, message }) };
    const { processor } = billedRateRefreshProcessor.start({ config, store: sqliteStore<StoreSchema>(db), connection: bullConnection(config.redisUrl), log });
    const result = await processor({ id: 'manual' } as Job);
    expect(result.failed).toBe(1);
    expect(warnings).toEqual([{ object: { failures: [expect.stringMatching(/^openai\/gpt-5: /)] }, message: 'billed-rate refresh: 1 model(s) failed' }]);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
