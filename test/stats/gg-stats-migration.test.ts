import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/db/dialect.js';
import { BACKEND_MIGRATIONS, openDatabase } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { runRecords } from '../../src/runs/run-record-sink.js';
import { runRows } from '../../src/runs/run-rows.js';
import { ggRunRecord, slice } from './gg-run-records.js';

const table = (db: ReturnType<typeof openDatabase>, name: string) => db.prepare(`SELECT * FROM ${name} ORDER BY 1, 2`).all();

describe('the gg statistics migration', () => {
  it('lifts runs stored before it exactly as the store lifts new ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evb-gg-stats-'));
    try {
      const older = join(dir, 'migrations');
      mkdirSync(older);
      for (const name of readdirSync(BACKEND_MIGRATIONS).filter((file) => file < '0038')) copyFileSync(join(BACKEND_MIGRATIONS, name), join(older, name));
      const record = ggRunRecord({
        id: 'old-gg',
        model: 'qwen/qwen3-coder',
        summary: {
          executionMode: 'tool_calling',
          providerStats: [
            slice('Together', 'qwen/qwen3-coder', { errors: { model_timeout: 2, other: 1 }, stalls: 1 }),
            slice('Together', null),
            slice('Together', 'qwen/qwen3-coder'),
            slice(null, null, { cost: null }),
          ],
          errors: { turns: 7, transpile: 1, byType: { transpile_compile: 1 } },
          toolCalls: 12,
          toolFailures: 2,
        },
      });
      // A two-model run of the original's shape: no execution mode, failures under errors, no slices.
      const multiModel = ggRunRecord({
        id: 'old-gg-multi',
        model: 'qwen/qwen3-coder',
        summary: {
          slotCosts: [{ slot: 'primary', modelId: 'qwen/qwen3-coder' }, { slot: 'worker', modelId: 'acme/helper' }, 'not a slot'],
          providerStats: [],
          errors: { turns: 3, errors: 2, toolFailures: { invalid_arguments: 2, bad: -1 } },
          toolCalls: 9,
        },
      });
      // Before the migration: the rows as the store wrote them then.
      const before = openDatabase(join(dir, 'old.sqlite'), older);
      for (const stored of [record, multiModel]) {
        before.prepare(
          `INSERT INTO runs (id, record, record_format, state, test_case_slug, test_case_version, variant, harness, model_id, created_at, updated_at)
           VALUES (?, ?, 1, 'completed', 'pong', 'v1.1.0', 'base', 'gg', 'qwen/qwen3-coder', 'x', 'x')`,
        ).run(String(stored.id), JSON.stringify(stored));
      }
      before.close();
      const migrated = openDatabase(join(dir, 'old.sqlite'));
      // The same run stored by this build.
      const fresh = openDatabase(join(dir, 'new.sqlite'));
      const records = runRecords({ rows: runRows(sqliteStore<StoreSchema>(fresh)), grades: { regradeById: () => Promise.resolve() } as never, listPriceOf: async () => null, onCompleted: async () => {}, onPublishedChanged: async () => {}, onError: () => {} });
      await records.store('job-old-gg', record, []);
      await records.store('job-old-gg-multi', multiModel, []);
      for (const name of ['run_gg_stats', 'run_provider_slices', 'run_provider_slice_errors']) {
        expect(table(migrated, name), name).toEqual(table(fresh, name));
      }
      expect(table(migrated, 'run_gg_stats')).toHaveLength(2);
      expect(migrated.prepare("SELECT execution_mode, has_provider_data, sole_model, errors_total, tool_failures FROM run_gg_stats WHERE run_id = 'old-gg-multi'").get()).toEqual({
        execution_mode: 'tool_calling', has_provider_data: 0, sole_model: null, errors_total: 2, tool_failures: '{"invalid_arguments":2}',
      });
      expect(table(migrated, 'run_provider_slice_errors')).toHaveLength(2);
      expect(migrated.prepare('SELECT first_of_pair, first_of_provider FROM run_provider_slices ORDER BY rowid').all()).toEqual([
        // The modelless slices are the sole model's: the second is the same pair as the first.
        { first_of_pair: 1, first_of_provider: 1 }, { first_of_pair: 0, first_of_provider: 0 }, { first_of_pair: 0, first_of_provider: 0 }, { first_of_pair: 1, first_of_provider: 1 },
      ]);
      migrated.close();
      fresh.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
