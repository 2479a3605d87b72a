import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBackend } from '../helpers/test-backend.js';
import { stopTestPostgres } from '../helpers/postgres.js';
import { buildAuthApp } from '../../src/auth/app.js';
import { authStoreLocation, openAuthStore } from '../../src/auth/auth-store.js';
import { loadConfig } from '../../src/config.js';
import { ADA_PASSWORD, ADA_BEARER, buildOriginalAuth } from './fixtures/original-auth.js';
import { modelCatalogStore } from '../../src/models/model-catalog-store.js';
import { IN_FLIGHT_DETAIL, PUBLISH_IN_FLIGHT_DETAIL } from '../../src/import/map-jobs.js';
import { ACCOUNT, buildOriginalStore, COVERAGE, GG_CONFIGS, JOBS, LADDER, RUNS } from './fixtures/original-store.js';
import { laddersTable } from '../../src/db/ladders-table.js';
import { ladderVerdictsTable } from '../../src/db/ladder-verdicts-table.js';
import { coverageGroupsTable } from '../../src/db/coverage-groups-table.js';
import { coveragePlansTable } from '../../src/db/coverage-plans-table.js';
import { coverageSettingsTable } from '../../src/db/coverage-settings-table.js';
import { reviewPlanId } from '../../src/import/map-coverage.js';
import { harnessConfigTable } from '../../src/db/harness-config-table.js';
import { ggConfigsTable } from '../../src/db/gg-configs-table.js';
import { importCli, importTarget, tableOf } from './import-cli.js';

afterAll(async () => {
  await stopTestPostgres();
});

// G2 (#29, closest to our schema), G4 (#53, list prices and provider policy, before the plain ladder flow) and G6 (the dispatch era, #57).
describe.each([
  ['G2', 29],
  ['G4', 53],
  ['G6', 57],
] as const)('importing a %s SQLite store of the original', (generation, upTo) => {
  let target: Awaited<ReturnType<typeof importTarget>>;
  let source: string;
  let authSource: string;
  let firstReport: NonNullable<Awaited<ReturnType<typeof importCli>>['report']>;
  beforeAll(async () => {
    target = await importTarget();
    source = join(target.dataDir, 'tcab-backend.sqlite');
    authSource = join(target.dataDir, 'tcab-auth.sqlite');
    await buildOriginalStore('sqlite', source, upTo);
    await buildOriginalAuth(authSource);
  });

  it('imports every run, review and link with each table balanced, and keeps unreadable runs with their reasons', async () => {
    const first = await importCli(target.env, ['--from', source, '--auth-from', authSource, '--accept-unreadable']);
    expect(first.stderr).not.toMatch(/stopped part way/);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const report = (firstReport = first.report!);
    expect(report.generation).toBe(generation);
    expect(report.balanced).toBe(true);
    const runs = tableOf(report, 'run');
    expect({ read: runs.read, imported: runs.imported, unreadable: runs.importedUnreadable, written: runs.written }).toEqual({ read: 7, imported: 5, unreadable: 2, written: 7 });
    expect(runs.mappedDigest!.source).toBe(runs.mappedDigest!.target);
    expect(runs.verbatimDigest!.source).toBe(runs.verbatimDigest!.target);
    expect(runs.notes.join('\n')).toContain(`run ${RUNS.eventsNotJson}: events_json is not a JSON array`);
    expect(tableOf(report, 'review')).toMatchObject({ read: 2, imported: 2, balanced: true });
    expect(tableOf(report, 'review_revision')).toMatchObject({ read: 1, imported: 1, balanced: true });
    expect(tableOf(report, 'run_link')).toMatchObject({ read: 7, imported: 7 });
    // What has no home is counted and named.
    expect(tableOf(report, 'tournament').skipped).toEqual([{ reason: 'no home here: tournaments', count: 1, ids: [] }]);
    expect(report.publishedUnreadable).toEqual([RUNS.earlyFailed]);
    expect(tableOf(report, 'model')).toMatchObject({
      read: upTo >= 47 ? 3 : 2, imported: 2, written: 2, balanced: true,
      refused: upTo >= 47 ? [{ reason: 'the catalog refuses it: maxInputPrice and maxOutputPrice are set together or not at all; maxOutputPrice is missing.', count: 1, ids: ['odd/half-capped'] }] : [],
    });
    expect(tableOf(report, 'model_alias')).toMatchObject({ read: 1, imported: 1, balanced: true });
    expect(tableOf(report, 'user')).toMatchObject({ read: 2, imported: 2, written: 2, balanced: true });
    expect(tableOf(report, 'user').notes.join()).toContain('is longer than 64 characters');
    expect(tableOf(report, 'token')).toMatchObject({ read: 2, imported: 1, balanced: true, refused: [{ reason: 'its account ck0gone is not here (never imported, or refused)', count: 1 }] });
    expect(tableOf(report, 'job')).toMatchObject({ read: 3, imported: 3, written: 3, balanced: true });
    expect(tableOf(report, 'publish_job')).toMatchObject({
      read: 3, imported: 2, balanced: true,
      refused: [{ reason: 'its run run-deleted-long-ago is not in the store (never imported, or refused)', count: 1, ids: ['pj-dangling'] }],
    });
    expect(first.stdout).toMatch(/run\s+runs\s+7\s+5\s+2/);
  });

  it('brings over the price history, the harness caps (D7) and the gg configurations, each table balanced', async () => {
    const prices = tableOf(firstReport, 'model_price');
    if (upTo >= 57) {
      expect(prices).toMatchObject({ read: 5, imported: 0, written: 0, balanced: true });
      expect(prices.skipped).toEqual([{ reason: expect.stringContaining('#57'), count: 5, ids: [] }]);
    } else {
      expect(prices).toMatchObject({ read: 5, imported: 3, written: 3, refused: [], balanced: true });
      expect(Object.fromEntries(prices.skipped.map((s) => [s.reason, s.ids]))).toEqual({
        "equal to the model's previous observation (our series keeps changes only)": ['2'],
        'no rates observed in this row': ['4'],
      });
      expect(prices.mappedDigest!.source).toBe(prices.mappedDigest!.target);
    }
    expect(tableOf(firstReport, 'harness_config')).toMatchObject({
      read: 4, imported: 2, written: 2, balanced: true,
      refused: [{ reason: expect.stringContaining('D7: max_parallelism 0'), count: 1, ids: ['goose'] }],
      skipped: [{ reason: expect.stringContaining('no such harness here'), count: 1, ids: ['mystery'] }],
    });
    const gg = tableOf(firstReport, 'gg_config');
    expect(gg).toMatchObject({ read: 2, imported: 2, written: 2, refused: [], balanced: true });
    expect(gg.verbatimDigest!.source).toBe(gg.verbatimDigest!.target);
    expect(gg.notes.join('\n')).toContain(`gg_config ${GG_CONFIGS.unbound}: imported, but it cannot be launched here`);

    const backend = await startTestBackend(target.env);
    try {
      const observations = await backend.store.db.selectFrom('model_price_observations').select(['model_slug', 'observed_at', 'input', 'cached_input', 'output', 'source']).orderBy('id').execute();
      expect(observations.map((o) => ({ ...o, input: o.input === null ? null : Number(o.input), cached_input: o.cached_input === null ? null : Number(o.cached_input), output: o.output === null ? null : Number(o.output) })))
        .toEqual(upTo >= 57 ? [] : [
          { model_slug: 'openai/gpt-x', observed_at: '2026-09-01T00:00:00.000Z', input: 2.5, cached_input: 1.25, output: 10, source: 'import' },
          { model_slug: 'openai/gpt-x', observed_at: '2026-09-03T00:00:00.000Z', input: 3, cached_input: null, output: 12, source: 'import' },
          { model_slug: 'some/uncurated', observed_at: '2026-09-05T00:00:00.000Z', input: 0.2, cached_input: 0.1, output: 0.6, source: 'import' },
        ]);
      const caps = new Map((await harnessConfigTable(backend.store).rows()).map((row) => [row.slug, row.maxParallelism]));
      expect(Object.fromEntries(caps)).toEqual({ codex: 4, claude: null });
      const configs = ggConfigsTable(backend.store);
      expect(await configs.get(ACCOUNT.id, GG_CONFIGS.bound)).toEqual({
        id: GG_CONFIGS.bound, name: 'Scout pair', slotModels: {},
        capabilitySet: { agents: [{ name: 'root', modelId: 'openai/gpt-x', capabilities: ['edit'] }, { name: 'scout', modelId: 'meta/llama-x' }] },
      });
      expect((await configs.list(ACCOUNT.id)).map((c) => c.id)).toEqual([GG_CONFIGS.bound, GG_CONFIGS.unbound]);
    } finally {
      await backend.close();
    }
  });

  it('brings over coverage groups, plans with their schedules (paused), settings and the legacy review plan', async () => {
    const dispatchEra = upTo >= 55;
    expect(tableOf(firstReport, 'coverage_group')).toMatchObject({
      read: 3, imported: 2, written: 2, balanced: true, refused: [{ reason: 'kind "mixed" is neither combo nor case', count: 1, ids: ['cg-odd-kind'] }],
    });
    const plansLedger = tableOf(firstReport, 'coverage_plan');
    expect(plansLedger).toMatchObject({ read: 4, imported: 4, written: 4, refused: [], balanced: true });
    expect(plansLedger.mappedDigest!.source).toBe(plansLedger.mappedDigest!.target);
    expect(plansLedger.notes.join('\n')).toContain(`coverage_plan ${COVERAGE.plans.unbounded}: runs_per_cell 150 is outside 1..100, imported as 100`);
    if (upTo >= 27) expect(plansLedger.notes.join('\n')).toContain(`coverage_plan ${COVERAGE.plans.large}: buffer 600 is above our most, imported as 500`);
    expect(tableOf(firstReport, 'review_plan')).toMatchObject({
      read: 2, imported: 1, written: 1, balanced: true, skipped: [{ reason: 'already copied into a coverage plan by the original (migrated)', count: 1, ids: ['ck0copied'] }],
    });
    expect(tableOf(firstReport, 'coverage_settings')).toMatchObject({ read: 3, imported: 2, written: 2, balanced: true, skipped: [{ count: 1, ids: ['ck0default'] }] });

    const backend = await startTestBackend(target.env);
    try {
      const groups = await coverageGroupsTable(backend.store).list(ACCOUNT.id);
      expect(groups.map((g) => [g.id, g.kind])).toEqual([[COVERAGE.caseGroup, 'case'], [COVERAGE.comboGroup, 'combo']].sort());
      expect(groups.find((g) => g.id === COVERAGE.comboGroup)!.combos).toEqual([
        { harness: 'codex', model: 'openai/gpt-x', provider: 'openai', ggConfigId: null, ggSlotModels: {} },
        { harness: 'gg', model: '', provider: null, ggConfigId: `saved:${GG_CONFIGS.bound}`, ggSlotModels: {} },
      ]);
      const plans = coveragePlansTable(backend.store);
      const running = await plans.get(ACCOUNT.id, COVERAGE.plans.running);
      expect(running).toMatchObject({
        name: 'Running', runsPerCell: 5, comboGroupIds: [COVERAGE.comboGroup], caseGroupIds: [COVERAGE.caseGroup],
        combos: [{ harness: 'claude', model: 'anthropic/claude-x', provider: null, ggConfigId: null, ggSlotModels: {} }],
        // Imported plans start no work: paused, whatever they were doing there.
        schedule: { outerAxis: upTo >= 27 ? 'combination' : 'case', paused: true, autoTopUp: dispatchEra || upTo >= 27, bufferTarget: upTo >= 27 ? { kind: 'bounded', runs: 8 } : null },
      });
      expect((await plans.get(ACCOUNT.id, COVERAGE.plans.unbounded))!).toMatchObject({ runsPerCell: 100, schedule: { bufferTarget: upTo >= 27 ? { kind: 'unbounded' } : null } });
      expect((await plans.get(ACCOUNT.id, COVERAGE.plans.large))!.schedule.bufferTarget).toEqual(upTo >= 27 ? { kind: 'bounded', runs: 500 } : null);
      const legacy = await plans.get(ACCOUNT.id, reviewPlanId(ACCOUNT.id));
      expect(legacy).toMatchObject({ name: 'Review plan', runsPerCell: 3, cases: [{ slug: 'carom', version: 'v1.1.0', variant: 'base' }], schedule: { paused: true } });
      // Another account sees none of them.
      expect(await plans.list('ck0someone-else')).toEqual([]);
      const settings = coverageSettingsTable(backend.store);
      expect(await settings.bufferTarget(ACCOUNT.id)).toEqual({ kind: 'bounded', runs: 12 });
      expect(await settings.bufferTarget('ck0unbounded')).toEqual({ kind: 'unbounded' });
      expect(await settings.bufferTarget('ck0default')).toBeNull();
    } finally {
      await backend.close();
    }
  });

  it('keeps what ran in the original running with --keep-schedules, and what was paused paused', async () => {
    const kept = await importTarget();
    const keptSource = join(kept.dataDir, 'tcab-backend.sqlite');
    await buildOriginalStore('sqlite', keptSource, upTo);
    const run = await importCli(kept.env, ['--from', keptSource, '--accept-unreadable', '--keep-schedules']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(tableOf(run.report!, 'coverage_plan').notes.join('\n')).toContain(`coverage_plan ${COVERAGE.plans.running}: ${upTo >= 55 ? 'filling' : 'running'} in the original, kept running (--keep-schedules)`);
    expect(tableOf(run.report!, 'ladder').notes.join('\n')).toContain('kept running (--keep-schedules)');
    const backend = await startTestBackend(kept.env);
    try {
      const plans = coveragePlansTable(backend.store);
      expect((await plans.get(ACCOUNT.id, COVERAGE.plans.running))!.schedule.paused).toBe(false);
      expect((await plans.get(ACCOUNT.id, COVERAGE.plans.large))!.schedule.paused).toBe(true);
      expect((await plans.get(ACCOUNT.id, reviewPlanId(ACCOUNT.id)))!.schedule.paused).toBe(true);
      expect((await laddersTable(backend.store).get(ACCOUNT.id, LADDER.id))!.paused).toBe(false);
    } finally {
      await backend.close();
    }
  });

  it('brings over ladders with their rung ids, schedules, climbers and verdicts (the dispatch era translated)', async () => {
    const dispatchEra = upTo >= 55;
    const key = 'h|codex|openai/gpt-x|openai';
    expect(tableOf(firstReport, 'ladder')).toMatchObject({ read: 1, imported: 1, written: 1, balanced: true });
    expect(tableOf(firstReport, 'ladder').notes.join('\n')).toContain(`ladder ${LADDER.id}: runs_per_cell 0 imported as 1`);
    expect(tableOf(firstReport, 'ladder').notes.join('\n')).toContain('imported paused');
    expect(tableOf(firstReport, 'ladder_rung')).toMatchObject({
      read: 3, imported: 2, written: 2, balanced: true, refused: [{ reason: 'its ladder ladder-gone is not in the store (never imported, or refused)', count: 1, ids: ['rung-orphan'] }],
    });
    const verdictTable = dispatchEra ? 'ladder_dispatch_outcome' : 'ladder_outcome';
    const verdictLedger = tableOf(firstReport, verdictTable);
    expect(verdictLedger).toMatchObject({
      read: dispatchEra ? 2 : 3, imported: dispatchEra ? 1 : 2, balanced: true,
      refused: [{ reason: 'its rung rung-nope is not a rung of the ladder', count: 1, ids: [`${LADDER.id}/rung-nope/codex|openai/gpt-x|openai`] }],
    });
    expect(verdictLedger.mappedDigest!.source).toBe(verdictLedger.mappedDigest!.target);
    if (!dispatchEra) {
      expect(tableOf(firstReport, 'ladder_climber')).toMatchObject({
        read: 3, imported: 2, written: 2, balanced: true,
        refused: [{ reason: expect.stringContaining('no member of the ladder resolves this climber key'), count: 1, ids: [`${LADDER.id}/mystery-key`] }],
      });
    }

    const backend = await startTestBackend(target.env);
    try {
      const ladder = await laddersTable(backend.store).get(ACCOUNT.id, LADDER.id);
      expect(ladder).toMatchObject({
        name: 'Carom climb', runsPerCell: 1, combos: [{ harness: 'codex', model: 'openai/gpt-x', provider: 'openai', ggConfigId: null, ggSlotModels: {} }],
        gate: { floor: 'scuffed', threshold: { kind: 'count', runs: 2 }, unloadedCountsAsBroken: false, earlyStop: true },
        outerAxis: 'combination', paused: true, bufferTarget: { kind: 'bounded', runs: 8 },
      });
      expect(ladder!.rungs.map((r) => [r.id, r.slug, r.engine ?? 'none'])).toEqual([[LADDER.rungs[0], 'carom', 'none'], [LADDER.rungs[1], 'breakout', upTo >= 43 ? 'godot' : 'none']]);
      expect(await laddersTable(backend.store).get('ck0someone-else', LADDER.id)).toBeNull();
      const verdicts = await ladderVerdictsTable(backend.store).list(LADDER.id);
      expect(verdicts.map((v) => [v.rungId, v.climberKey, v.decidedSlug, v.outcome, v.overrideOutcome ?? null])).toEqual(dispatchEra
        ? [[LADDER.rungs[0], key, 'carom', 'advanced', null]]
        : [[LADDER.rungs[0], key, 'carom', 'advanced', null], [LADDER.rungs[1], key, 'breakout', 'walled', upTo >= 54 ? null : 'advanced']]);
      expect(verdicts[0]!.decidedAt).toBe(dispatchEra ? '2026-10-01T08:00:00.250Z' : '2026-09-27T08:00:00.250Z');
      const climbers = await backend.store.db.selectFrom('ladder_climbers').select(['key', 'priority', 'focused', 'held']).where('ladder_id', '=', LADDER.id).orderBy('key').execute();
      expect(climbers).toEqual(dispatchEra ? [] : [
        { key: 'h|claude|anthropic/claude-x', priority: 0, focused: 0, held: 0 },
        { key, priority: 2, focused: 1, held: 1 },
      ]);
    } finally {
      await backend.close();
    }
  });

  it('writes nothing on a second run and prints the same digests', async () => {
    const again = await importCli(target.env, ['--from', source, '--auth-from', authSource, '--accept-unreadable']);
    expect(again.code, again.stderr).toBe(0);
    const report = again.report!;
    expect(report.tables.map((t) => t.written)).toEqual(report.tables.map(() => 0));
    for (const table of ['run', 'review', 'model_price', 'harness_config', 'gg_config', 'coverage_group', 'coverage_plan', 'review_plan', 'coverage_settings', 'ladder', 'ladder_rung']) {
      expect(tableOf(report, table).mappedDigest).toEqual(tableOf(firstReport, table).mappedDigest);
      expect(tableOf(report, table).verbatimDigest).toEqual(tableOf(firstReport, table).verbatimDigest);
    }
    expect(tableOf(report, 'run')).toMatchObject({ read: 7, imported: 5, importedUnreadable: 2, balanced: true });
    // A dry run maps the same rows to the same digests, and writes nothing.
    const dry = await importCli(target.env, ['--from', source, '--accept-unreadable', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(tableOf(dry.report!, 'run').mappedDigest!.source).toBe(tableOf(firstReport, 'run').mappedDigest!.source);
  });

  it('exits 1 naming a published run it cannot read, unless told to accept it', async () => {
    const result = await importCli(target.env, ['--from', source]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(RUNS.earlyFailed);
    expect(result.stderr).toContain('--accept-unreadable');
  });

  it('serves the imported runs through our API: details, states, links and the unreadable list', async () => {
    const backend = await startTestBackend(target.env);
    try {
      const detail = await backend.app.inject({ method: 'GET', url: `/runs/${RUNS.completed}` });
      expect(detail.statusCode).toBe(200);
      const run = detail.json();
      expect(run.published).toBe(true);
      expect(run.publishedAt).toBe('2026-10-02T06:00:00.500Z');
      expect(JSON.stringify(run)).toContain('https://git.example/released');
      expect(JSON.stringify(run.reviews ?? run)).toContain('Solid run.');

      const failures = (await backend.app.inject({ method: 'GET', url: '/runs?state=failures' })).json();
      const ids = (failures.runs ?? failures.items ?? []).map((r: { id: string }) => r.id);
      expect(ids).toEqual(expect.arrayContaining([RUNS.limit, RUNS.timedOut]));

      const unreadable = (await backend.app.inject({ method: 'GET', url: '/runs/unreadable' })).json();
      expect(JSON.stringify(unreadable)).toContain(RUNS.badJson);
      expect(JSON.stringify(unreadable)).toContain(RUNS.earlyFailed);

      const events = await backend.app.inject({ method: 'GET', url: `/runs/${RUNS.timedOut}/events` });
      expect(events.statusCode).toBe(200);

      // The catalog with its aliases, policy and list prices per Mtok, exactly.
      const catalog = modelCatalogStore(backend.store);
      const gpt = await catalog.get('openai/gpt-x');
      expect(gpt).toMatchObject({ name: 'GPT X', provider: 'openai', aliases: [{ slug: 'gpt-x', harnessFamily: upTo >= 12 ? 'codex' : 'openrouter' }] });
      if (upTo >= 46) {
        expect(gpt!.listPrice).toEqual({ inputPerMtok: 2.5, cachedInputPerMtok: 1.25, outputPerMtok: 10 });
        expect((await catalog.get('meta/llama-x'))!.listPrice).toEqual({ inputPerMtok: 0.2, cachedInputPerMtok: 0.1, outputPerMtok: 0.6 });
      }
      if (upTo >= 47) expect(gpt).toMatchObject({ bannedProviders: ['cheapo'], maxInputPrice: 5 });
      const listed = await backend.app.inject({ method: 'GET', url: '/models' });
      expect(listed.statusCode).toBe(200);
      expect(listed.body).toContain('openai/gpt-x');

      // D2: in-flight jobs are imported terminal, with a finish time, so nothing counts them in flight.
      const jobs = await backend.store.db.selectFrom('jobs').select(['id', 'state', 'detail', 'finished_at', 'origin', 'account_id', 'provider']).orderBy('seq').execute();
      expect(jobs.map((j) => j.id).sort()).toEqual(Object.values(JOBS).sort());
      expect(jobs.find((j) => j.id === JOBS.running)).toMatchObject({ state: 'failed', detail: IN_FLIGHT_DETAIL, finished_at: '2026-10-05T22:00:00.000Z', provider: 'openai' });
      expect(jobs.find((j) => j.id === JOBS.queued)).toMatchObject({ state: 'canceled', detail: IN_FLIGHT_DETAIL, ...(upTo >= 26 ? { origin: 'plan:p1' } : {}) });
      expect(jobs.every((j) => j.finished_at !== null)).toBe(true);
      const publishJobs = await backend.store.db.selectFrom('publish_jobs').select(['id', 'state', 'detail']).orderBy('id').execute();
      expect(publishJobs).toEqual([
        { id: 'pj-queued', state: 'failed', detail: PUBLISH_IN_FLIGHT_DETAIL },
        { id: 'pj-succeeded', state: 'succeeded', detail: null },
      ]);
    } finally {
      await backend.close();
    }
  });

  it('lets an imported account log in with its original password, and its open console session keep working', async () => {
    const config = loadConfig(target.env);
    const store = await openAuthStore(authStoreLocation(config));
    const auth = await buildAuthApp({ store, tokenLifetimeMs: null });
    try {
      const login = await auth.inject({ method: 'POST', url: '/auth/login', payload: { username: 'ada', password: ADA_PASSWORD } });
      expect(login.statusCode).toBe(200);
      expect(login.json().account).toEqual({ id: ACCOUNT.id, username: 'ada', displayName: ACCOUNT.displayName });
      const session = await auth.inject({ method: 'POST', url: '/auth/verify', headers: { authorization: `Bearer ${ADA_BEARER}` } });
      expect(session.statusCode).toBe(200);
      expect(session.json()).toMatchObject({ id: ACCOUNT.id });
    } finally {
      await auth.close();
      await store.db.destroy();
    }
    // The rehash at login is ours, not a conflict: a rerun still writes nothing.
    const again = await importCli(target.env, ['--from', source, '--auth-from', authSource, '--accept-unreadable']);
    expect(tableOf(again.report!, 'user')).toMatchObject({ imported: 2, written: 0, refused: [], balanced: true });
  });
});
