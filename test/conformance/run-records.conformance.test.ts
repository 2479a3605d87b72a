/**
 * Conformance: run records as the original system's drivers write them, read back over HTTP
 * (TheClockwyrks/TheTestCabinet, crates/entities/src/run.rs: `engine_slug` is lifted from
 * `record.subject.engine_slug`, `none` for a record without one, and `gg_preset` from
 * `record.subject.gg_capability_set.preset`; crates/core/src/gg.rs `GgCapabilitySet::preset`).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_MIGRATIONS, openDatabase } from '../../src/db/open-database.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;

/** A record whose subject also carries `extra`. */
function withSubject(extra: Record<string, unknown>, harness = 'claude'): Record<string, unknown> {
  const record = runRecord({ harness, model: 'acme/coder' });
  Object.assign(record.subject as Record<string, unknown>, extra);
  return record;
}

beforeAll(async () => {
  backend = await startTestBackend({ RUN_WORKERS: 'false' });
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
});
afterAll(async () => {
  await backend?.close();
});

const subjectOf = async (record: Record<string, unknown>) => {
  await seedRun(backend, record);
  const response = await http.get('/runs?state=any&fields=summary&offset=0&limit=100');
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const card = response.body.runs.find((run: { id: string }) => run.id === record.id);
  return card.subject as { engine: string; ggConfigName: string | null };
};

describe('run records written by the original drivers', () => {
  it('reads the engine from subject.engineSlug', async () => {
    expect((await subjectOf(withSubject({ engineSlug: 'phaser' }))).engine).toBe('phaser');
  });

  it('reads an absent engine as none', async () => {
    expect((await subjectOf(withSubject({}))).engine).toBe('none');
  });

  it("names a gg run's configuration from subject.ggCapabilitySet.preset", async () => {
    const subject = await subjectOf(withSubject({ ggCapabilitySet: { preset: 'planning-A', capabilities: [], slots: [] } }, 'gg'));
    expect(subject.ggConfigName).toBe('planning-A');
  });
});

describe('runs stored before the store read engineSlug and preset', () => {
  it('are lifted again by their migration', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evb-engine-slug-'));
    try {
      const older = join(dir, 'migrations');
      mkdirSync(older);
      for (const name of readdirSync(BACKEND_MIGRATIONS).filter((file) => file < '0086')) copyFileSync(join(BACKEND_MIGRATIONS, name), join(older, name));
      const before = openDatabase(join(dir, 'store.sqlite'), older);
      const record = withSubject({ engineSlug: 'phaser', ggCapabilitySet: { preset: 'minimal' } }, 'gg');
      before.prepare(
        `INSERT INTO runs (id, record, record_format, state, test_case_slug, test_case_version, variant, harness, model_id, created_at, updated_at, summary)
         VALUES ('old-run', ?, 1, 'completed', 'pong', 'v1.1.0', 'base', 'gg', 'acme/coder', 'x', 'x', '{"subject":{"engine":"none","ggConfigName":null}}')`,
      ).run(JSON.stringify(record));
      before.close();
      const migrated = openDatabase(join(dir, 'store.sqlite'));
      const row = migrated.prepare<[], { engine: string; gg_config_name: string; summary: string }>("SELECT engine, gg_config_name, summary FROM runs WHERE id = 'old-run'").get()!;
      migrated.close();
      expect({ engine: row.engine, ggConfigName: row.gg_config_name, card: JSON.parse(row.summary).subject }).toEqual({
        engine: 'phaser', ggConfigName: 'minimal', card: { engine: 'phaser', ggConfigName: 'minimal' },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
