import type { BackendStore } from '../../src/db/dialect.js';

/** A stored run naming a model and a case version: all a store-module test needs of one, on either engine. */
export async function insertRun(store: BackendStore, run: { id: string; slug?: string; version?: string; modelId?: string; harness?: string }): Promise<void> {
  await store.db.insertInto('runs').values({
    id: run.id, record_format: 1, state: 'completed', test_case_slug: run.slug ?? 'carom', test_case_version: run.version ?? 'v1.0.0',
    variant: 'base', harness: run.harness ?? 'codex', model_id: run.modelId ?? 'vendor/model', created_at: '2026-11-26T00:00:00.000Z',
    updated_at: '2026-11-26T00:00:00.000Z', record: '{}',
  }).execute();
}
