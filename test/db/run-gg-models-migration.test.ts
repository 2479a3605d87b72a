import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKEND_MIGRATIONS, openDatabase } from '../../src/db/open-database.js';
import { recordedGgModels } from '../../src/jobs/bind-gg-models.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'evb-gg-models-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A store as the build before migration 0090 left it. */
function olderStore(file: string) {
  const older = join(dir, 'older');
  mkdirSync(older);
  for (const name of readdirSync(BACKEND_MIGRATIONS).filter((entry) => entry < '0090')) copyFileSync(join(BACKEND_MIGRATIONS, name), join(older, name));
  return openDatabase(file, older);
}

const agents = { agents: [{ name: 'root', modelId: 'vendor/r', capabilities: [] }, { name: 'helper', modelId: 'vendor/h', capabilities: [] }] };
const slots = { slots: [{ slot: 'primary', modelId: 'vendor/r' }, { slot: 'scout', modelId: ' ' }, { slot: 'helper', modelId: 'vendor/h2' }] };

describe('migration 0090', () => {
  it('lifts stored gg runs’ bindings from their records as a new run’s are lifted, and older gg jobs’ from their requests', () => {
    const file = join(dir, 'db.sqlite');
    const before = olderStore(file);
    const at = '2026-11-01T00:00:00.000Z';
    const run = before.prepare(`INSERT INTO runs (id, record, record_format, state, test_case_slug, test_case_version, variant, harness, model_id, gg_config_id, created_at, updated_at)
      VALUES (?, ?, 1, 'completed', 'pong', 'v1.0.0', 'base', ?, 'vendor/r', ?, ?, ?)`);
    const subjects: Record<string, [string, object, string | null]> = {
      agents: ['gg', { ggConfigId: 'cfg', ggCapabilitySet: agents }, 'cfg'],
      slots: ['gg', { ggConfigId: 'cfg', ggCapabilitySet: slots }, 'cfg'],
      bare: ['gg', { ggConfigId: 'cfg' }, 'cfg'],
      driven: ['gg', { ggCapabilitySet: { preset: 'Pair', presetId: 'cfg', ...agents } }, null],
      claude: ['claude', { ggCapabilitySet: agents }, null],
    };
    for (const [id, [harness, subject, configId]] of Object.entries(subjects)) run.run(id, JSON.stringify({ subject: { harnessSlug: harness, ...subject } }), harness, configId, at, at);
    const job = before.prepare(`INSERT INTO jobs (id, account_id, test_case_slug, test_case_version, variant, harness_slug, model_id, test_type, request, gg_models, state, enqueued_at)
      VALUES (?, 'acc', 'pong', 'v1.0.0', 'base', 'gg', 'vendor/r', 'end-to-end', ?, ?, 'queued', ?)`);
    // A launch that carried no slotModels (0087 found none), and one whose bindings are recorded and stay.
    job.run('set-only', JSON.stringify({ ggCapabilitySet: agents }), null, at);
    job.run('bound', JSON.stringify({ ggCapabilitySet: agents, ggSlotModels: { root: 'vendor/r', helper: 'vendor/other' } }), 'helper=vendor/other,root=vendor/r', at);
    before.close();

    const db = openDatabase(file);
    const rows = db.prepare('SELECT id, gg_config_id AS config, gg_models AS models FROM runs ORDER BY id').all();
    expect(rows).toEqual([
      { id: 'agents', config: 'cfg', models: 'helper=vendor/h,root=vendor/r' },
      { id: 'bare', config: 'cfg', models: null },
      { id: 'claude', config: null, models: null },
      { id: 'driven', config: 'cfg', models: 'helper=vendor/h,root=vendor/r' },
      { id: 'slots', config: 'cfg', models: 'helper=vendor/h2,root=vendor/r' },
    ]);
    // The SQL lift and the one a newly stored run gets agree.
    for (const id of ['agents', 'slots', 'bare']) {
      const subject = subjects[id]![1] as { ggCapabilitySet?: object };
      expect(recordedGgModels(subject.ggCapabilitySet), id).toBe((rows as Array<{ id: string; models: string | null }>).find((row) => row.id === id)!.models);
    }
    expect(db.prepare('SELECT id, gg_models AS models FROM jobs ORDER BY id').all()).toEqual([
      { id: 'bound', models: 'helper=vendor/other,root=vendor/r' },
      { id: 'set-only', models: 'helper=vendor/h,root=vendor/r' },
    ]);
    db.close();
  });
});
