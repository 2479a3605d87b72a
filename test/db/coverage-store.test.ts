import { beforeEach, describe, expect, it } from 'vitest';
import { coverageGroupsTable } from '../../src/db/coverage-groups-table.js';
import { coveragePlansTable, DEFAULT_SCHEDULE, type PlanDeclaration } from '../../src/db/coverage-plans-table.js';
import { coverageSchedulesTable } from '../../src/db/coverage-schedules-table.js';
import { coverageSettingsTable } from '../../src/db/coverage-settings-table.js';
import type { BackendStore } from '../../src/db/dialect.js';
import { ladderClimbersTable } from '../../src/db/ladder-climbers-table.js';
import { ladderVerdictsTable } from '../../src/db/ladder-verdicts-table.js';
import { laddersTable, type LadderDeclaration, type LadderSchedule } from '../../src/db/ladders-table.js';
import { DEFAULT_GATE } from '../../src/ladders/gate.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';

const stores = engineStores();
const AT = '2026-11-27T10:00:00.000Z';
const combo = (harness: string, model: string) => ({ harness, model, provider: null, ggConfigId: null, ggSlotModels: {} });

const declaration = (name: string): PlanDeclaration =>
  ({ name, runsPerCell: 3, comboGroupIds: ['g1'], caseGroupIds: [], combos: [combo('claude', 'vendor/x')], cases: [{ slug: 'kart', version: 'v1.0.0', variant: 'base' }] });
const ladderDeclaration = (name: string): LadderDeclaration => ({ name, runsPerCell: 2, gate: DEFAULT_GATE, comboGroupIds: [], combos: [combo('claude', 'vendor/x')] });
const LADDER_SCHEDULE: LadderSchedule = { outerAxis: 'rung', paused: true, autoTopUp: false, bufferTarget: null };
const rung = (slug: string, id?: string) => ({ ...(id ? { id } : {}), slug, version: 'v1.0.0', variant: 'base', engine: 'none', runs: null });

describe.each(ENGINES)('the coverage and ladder store on %s', (engine) => {
  let store: BackendStore;
  beforeEach(async () => {
    store = await stores.fresh(engine);
  });

  it('lists plans and groups by creation, then id on a tie, with their schedules joined', async () => {
    // Rows written within one millisecond (or copied in) share created_at: the id decides.
    await store.db.insertInto('coverage_plans').values(['p-b', 'p-a', 'p-c'].map((id, i) => ({
      id, account_id: 'acc', name: id, runs_per_cell: 1, created_at: i === 2 ? '2026-11-27T09:00:00.000Z' : AT, updated_at: AT,
    }))).execute();
    const schedules = coverageSchedulesTable(store);
    for (const id of ['p-a', 'p-b', 'p-c']) await schedules.put(`plan:${id}`, 'acc', { ...DEFAULT_SCHEDULE, autoTopUp: id === 'p-b' });
    const plans = coveragePlansTable(store);
    expect((await plans.list('acc')).map((plan) => [plan.id, plan.schedule.autoTopUp])).toEqual([['p-c', false], ['p-a', false], ['p-b', true]]);
    expect(await plans.list('other')).toEqual([]);

    const groups = coverageGroupsTable(store);
    const first = await groups.create('acc', { name: 'G', kind: 'combo', combos: [combo('codex', 'vendor/y')], cases: [] });
    expect(await groups.list('acc')).toEqual([first]);
    expect(await groups.byIds('acc', [first.id, first.id, 'gone'])).toEqual(new Map([[first.id, first]]));
    expect(await groups.byIds('other', [first.id])).toEqual(new Map());
    expect(await groups.update('other', first.id, { ...first, name: 'H' })).toBeNull();
    expect(await groups.delete('acc', first.id)).toBe(true);
    expect(await groups.delete('acc', first.id)).toBe(false);
  });

  it('creates and updates a plan with its schedule in one transaction, and leaves nothing of a failed one', async () => {
    const plans = coveragePlansTable(store);
    const plan = await plans.create('acc', declaration('P'), { ...DEFAULT_SCHEDULE, bufferTarget: { kind: 'bounded', runs: 7 } });
    expect(plan).toMatchObject({ ...declaration('P'), schedule: { outerAxis: 'case', paused: false, autoTopUp: false, bufferTarget: { kind: 'bounded', runs: 7 } } });
    expect(await plans.exists('acc', plan.id)).toBe(true);
    expect(await plans.exists('other', plan.id)).toBe(false);
    const updated = await plans.update('acc', plan.id, declaration('Q'), null);
    expect(updated).toMatchObject({ name: 'Q', schedule: plan.schedule });
    expect(await plans.update('other', plan.id, declaration('R'), DEFAULT_SCHEDULE)).toBeNull();
    // A schedule the CHECK refuses rolls the declaration back with it.
    await expect(plans.update('acc', plan.id, declaration('S'), { ...DEFAULT_SCHEDULE, outerAxis: 'diagonal' as 'case' })).rejects.toThrow();
    expect(await plans.get('acc', plan.id)).toMatchObject({ name: 'Q', schedule: plan.schedule });
    await expect(plans.create('acc', declaration('T'), { ...DEFAULT_SCHEDULE, outerAxis: 'diagonal' as 'case' })).rejects.toThrow();
    expect((await plans.list('acc')).map((p) => p.name)).toEqual(['Q']);
    expect(await plans.delete('acc', plan.id)).toBe(true);
    expect(await coverageSchedulesTable(store).get(`plan:${plan.id}`)).toBeNull();
  });

  it('upserts schedules and settings whole, never over another account’s owner, and flips paused alone', async () => {
    const schedules = coverageSchedulesTable(store);
    await schedules.put('plan:p', 'acc', { outerAxis: 'combination', paused: false, autoTopUp: true, bufferTarget: { kind: 'unbounded' } });
    await schedules.put('plan:p', 'acc', { outerAxis: 'case', paused: false, autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 4 } });
    await schedules.put('plan:p', 'intruder', { outerAxis: 'combination', paused: true, autoTopUp: false, bufferTarget: null });
    expect(await schedules.get('plan:p')).toEqual({ outerAxis: 'case', paused: false, autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 4 } });
    expect(await schedules.setPaused('plan:p', true)).toBe(true);
    expect(await schedules.get('plan:p')).toEqual({ outerAxis: 'case', paused: true, autoTopUp: true, bufferTarget: { kind: 'bounded', runs: 4 } });
    expect(await schedules.setPaused('plan:gone', true)).toBe(false);
    expect(await schedules.get('plan:gone')).toBeNull();

    const settings = coverageSettingsTable(store);
    expect(await settings.bufferTarget('acc')).toBeNull();
    await settings.setBufferTarget('acc', { kind: 'bounded', runs: 20 });
    await settings.setBufferTarget('acc', { kind: 'unbounded' });
    expect(await settings.bufferTarget('acc')).toEqual({ kind: 'unbounded' });
    await settings.setBufferTarget('acc', { kind: 'bounded', runs: 3 });
    expect(await settings.bufferTarget('acc')).toEqual({ kind: 'bounded', runs: 3 });
  });

  it('keeps ladders’ rungs in order through create, reconcile and reorder, listing every ladder’s in one read', async () => {
    const ladders = laddersTable(store);
    const ladder = await ladders.create('acc', ladderDeclaration('L'), [rung('a'), rung('b'), rung('c')], LADDER_SCHEDULE);
    expect(ladder).toMatchObject({ name: 'L', accountId: 'acc', gate: DEFAULT_GATE, ...LADDER_SCHEDULE });
    expect(ladder.rungs.map((r) => r.slug)).toEqual(['a', 'b', 'c']);
    const [a, b, c] = ladder.rungs.map((r) => r.id) as [string, string, string];
    const other = await ladders.create('acc', ladderDeclaration('M'), [rung('z')], { ...LADDER_SCHEDULE, paused: false });

    // Keep c and a (swapped), drop b, add d.
    const updated = await ladders.update('acc', ladder.id, ladderDeclaration('L2'), [rung('c2', c), rung('d'), rung('a', a)], null);
    expect(updated!.rungs.map((r) => [r.id === a ? 'a' : r.id === c ? 'c' : 'new', r.slug])).toEqual([['c', 'c2'], ['new', 'd'], ['a', 'a']]);
    expect(updated).toMatchObject({ name: 'L2', ...LADDER_SCHEDULE });
    expect(updated!.rungs.some((r) => r.id === b)).toBe(false);
    expect(await ladders.update('other', ladder.id, ladderDeclaration('X'), [], null)).toBeNull();

    const reordered = await ladders.reorder('acc', ladder.id, [a, updated!.rungs[1]!.id, c]);
    expect(reordered!.rungs.map((r) => r.slug)).toEqual(['a', 'd', 'c2']);
    expect(await ladders.reorder('other', ladder.id, [a])).toBeNull();

    const listed = await ladders.list('acc');
    expect(listed.map((l) => [l.name, l.paused, l.rungs.map((r) => r.slug)])).toEqual([['L2', true, ['a', 'd', 'c2']], ['M', false, ['z']]]);
    expect(await ladders.exists('acc', other.id)).toBe(true);
    expect(await ladders.exists('other', other.id)).toBe(false);
    expect(await ladders.delete('acc', other.id)).toBe(true);
    expect(await ladders.get('acc', other.id)).toBeNull();
  });

  it('upserts climber steering with its flags as booleans', async () => {
    const ladder = await laddersTable(store).create('acc', ladderDeclaration('L'), [rung('a')], LADDER_SCHEDULE);
    const climbers = ladderClimbersTable(store);
    await climbers.put(ladder.id, { key: 'claude|vendor/x', priority: 2, focused: true, held: false });
    await climbers.put(ladder.id, { key: 'claude|vendor/x', priority: 5, focused: false, held: true });
    await climbers.put(ladder.id, { key: 'codex|vendor/y', priority: 0, focused: true, held: true });
    expect(await climbers.byKey(ladder.id)).toEqual(new Map([
      ['claude|vendor/x', { key: 'claude|vendor/x', priority: 5, focused: false, held: true }],
      ['codex|vendor/y', { key: 'codex|vendor/y', priority: 0, focused: true, held: true }],
    ]));
  });

  it('keys verdicts by climber, rung, case and version: a second record keeps the first, an override sits beside it', async () => {
    const ladder = await laddersTable(store).create('acc', ladderDeclaration('L'), [rung('a'), rung('b')], LADDER_SCHEDULE);
    const [r1, r2] = ladder.rungs.map((r) => r.id) as [string, string];
    const verdicts = ladderVerdictsTable(store);
    const verdict = (rungId: string, outcome: 'advanced' | 'walled', decidedEngine = 'none', decidedVersion = 'v1.0.0') =>
      ({ climberKey: 'k', rungId, decidedSlug: 'a', decidedVersion, decidedEngine, outcome });
    expect(await verdicts.record(ladder.id, [])).toBe(0);
    expect(await verdicts.record(ladder.id, [verdict(r1, 'advanced'), verdict(r2, 'walled')])).toBe(2);
    // The same case and version under another engine is the same verdict; another version is a new one.
    expect(await verdicts.record(ladder.id, [verdict(r1, 'walled', 'simple-2d'), verdict(r1, 'walled', 'none', 'v2.0.0')])).toBe(1);
    const key = { climberKey: 'k', rungId: r1, decidedSlug: 'a', decidedVersion: 'v1.0.0' };
    expect(await verdicts.setOverride(ladder.id, key, 'walled')).toBe(true);
    expect(await verdicts.setOverride(ladder.id, { ...key, decidedSlug: 'b' }, 'walled')).toBe(false);
    const listed = await verdicts.list(ladder.id);
    expect(listed.map((v) => [v.rungId === r1 ? 'r1' : 'r2', v.decidedVersion, v.decidedEngine, v.outcome, v.overrideOutcome])).toEqual(expect.arrayContaining([
      ['r1', 'v1.0.0', 'none', 'advanced', 'walled'], ['r2', 'v1.0.0', 'none', 'walled', null], ['r1', 'v2.0.0', 'none', 'walled', null],
    ]));
    expect(listed).toHaveLength(3);
    expect(await verdicts.setOverride(ladder.id, key, null)).toBe(true);
    expect((await verdicts.list(ladder.id)).find((v) => v.rungId === r1 && v.decidedVersion === 'v1.0.0')).toMatchObject({ overrideOutcome: null, overrideAt: null });
  });
});
