import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coveragePlansTable } from '../../src/db/coverage-plans-table.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { ladderVerdictsTable } from '../../src/db/ladder-verdicts-table.js';
import { laddersTable } from '../../src/db/ladders-table.js';
import { BACKEND_MIGRATIONS, openDatabase } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'evb-schedules-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A store as the build before migration 0087 left it. */
function olderStore(file: string) {
  const older = join(dir, 'older');
  mkdirSync(older);
  for (const name of readdirSync(BACKEND_MIGRATIONS).filter((entry) => entry < '0087')) copyFileSync(join(BACKEND_MIGRATIONS, name), join(older, name));
  return openDatabase(file, older);
}

describe('migrations 0087 to 0089', () => {
  it('move both stored schedule shapes into one, keep gg jobs’ bindings and re-key verdicts by case', async () => {
    const file = join(dir, 'db.sqlite');
    const before = olderStore(file);
    const at = '2026-11-01T00:00:00.000Z';
    const plan = before.prepare(`INSERT INTO coverage_plans (id, account_id, name, runs_per_cell, outer_axis, paused, auto_top_up, buffer_kind, buffer_runs, created_at, updated_at)
      VALUES (?, 'acc', ?, 2, ?, ?, ?, ?, ?, ?, ?)`);
    plan.run('p1', 'bounded', 'combination', 1, 0, 'bounded', 7, at, at);
    plan.run('p2', 'inherits', 'case', 0, 1, null, null, at, at);
    plan.run('p3', 'too deep', 'case', 0, 0, 'bounded', 2000, at, at);
    const ladder = before.prepare(`INSERT INTO ladders (id, account_id, name, runs_per_cell, gate, outer_axis, paused, auto_top_up, buffer_target, created_at, updated_at)
      VALUES (?, 'acc', ?, 1, '{"floor":"scuffed","threshold":{"kind":"count","runs":1},"unloadedCountsAsBroken":true,"earlyStop":false}', ?, ?, ?, ?, ?, ?)`);
    ladder.run('l1', 'unbounded', 'combination', 0, 1, '{"kind":"unbounded"}', at, at);
    ladder.run('l2', 'bounded', 'rung', 1, 1, '{"kind":"bounded","runs":4}', at, at);
    ladder.run('l3', 'inherits', 'rung', 1, 0, null, at, at);
    before.prepare("INSERT INTO ladder_rungs (id, ladder_id, position, slug, version, variant, engine) VALUES ('r1', 'l1', 0, 'pong', 'v1.0.0', 'base', 'simple-2d')").run();
    const verdict = before.prepare(`INSERT INTO ladder_verdicts (ladder_id, climber_key, rung_id, decided_version, decided_engine, outcome, decided_at)
      VALUES ('l1', 'h|claude|m', 'r1', 'v1.0.0', ?, ?, ?)`);
    verdict.run('none', 'walled', '2026-11-02T00:00:00.000Z');
    verdict.run('simple-2d', 'advanced', '2026-11-01T00:00:00.000Z');
    const job = before.prepare(`INSERT INTO jobs (id, account_id, test_case_slug, test_case_version, variant, harness_slug, model_id, test_type, request, state, enqueued_at)
      VALUES (?, 'acc', 'pong', 'v1.0.0', 'base', ?, 'm', 'end-to-end', ?, 'queued', ?)`);
    job.run('gg-job', 'gg', JSON.stringify({ ggSlotModels: { root: 'vendor/r', helper: 'vendor/h' } }), at);
    job.run('claude-job', 'claude', '{}', at);
    before.close();

    const db = openDatabase(file);
    const store = sqliteStore<StoreSchema>(db);
    const plans = new Map((await coveragePlansTable(store).list('acc')).map((p) => [p.id, p.schedule]));
    expect(Object.fromEntries(plans)).toEqual({
      p1: { outerAxis: 'combination', paused: true, autoTopUp: false, bufferTarget: { kind: 'bounded', runs: 7 } },
      p2: { outerAxis: 'case', paused: false, autoTopUp: true, bufferTarget: null },
      p3: { outerAxis: 'case', paused: false, autoTopUp: false, bufferTarget: { kind: 'bounded', runs: 500 } },
    });
    const ladders = (await laddersTable(store).list('acc')).map(({ id, outerAxis, paused, autoTopUp, bufferTarget }) => ({ id, outerAxis, paused, autoTopUp, bufferTarget }));
    expect(ladders).toEqual([
      { id: 'l1', outerAxis: 'combination', paused: false, autoTopUp: true, bufferTarget: { kind: 'unbounded' } },
      { id: 'l2', outerAxis: 'rung', paused: true, autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 4 } },
      { id: 'l3', outerAxis: 'rung', paused: true, autoTopUp: false, bufferTarget: null },
    ]);
    expect(db.prepare('SELECT id, gg_models FROM jobs ORDER BY id').all()).toEqual([
      { id: 'claude-job', gg_models: null }, { id: 'gg-job', gg_models: 'helper=vendor/h,root=vendor/r' },
    ]);
    // Of two verdicts on one version under two engines, the earlier stands, keyed by the rung's case.
    expect(await ladderVerdictsTable(store).list('l1')).toEqual([expect.objectContaining({ rungId: 'r1', decidedSlug: 'pong', decidedVersion: 'v1.0.0', decidedEngine: 'simple-2d', outcome: 'advanced' })]);
    // A schedule goes with its owner.
    expect(await coveragePlansTable(store).delete('acc', 'p1')).toBe(true);
    expect(await laddersTable(store).delete('acc', 'l1')).toBe(true);
    expect(db.prepare('SELECT owner FROM coverage_schedules ORDER BY owner').pluck().all()).toEqual(['ladder:l2', 'ladder:l3', 'plan:p2', 'plan:p3']);
    db.close();
  });
});
