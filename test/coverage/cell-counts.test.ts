import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimNext, completeClaimed } from '../helpers/dispatcher.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'counts-dispatch';
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let token: string;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: ['vendor/x', 'vendor/root'] });
  await seedCatalog(backend.store, backend.dataDir, [
    { slug: 'kart', version: 'v2.0.0', engines: ['simple-2d'], domains: ['play'] },
    { slug: 'bench', version: 'v1.0.0', testType: 'performance' },
  ]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  token = (await backend.auth.register('counter')).token;
});
afterAll(async () => {
  await backend?.close();
});

const matrixOf = async (planId: string) => (await http.get(`/coverage-plans/${planId}/coverage`, token)).body;

describe('the cell counting rules', () => {
  it('counts only runs on the pin’s engine (none when a record names no engine), completed ones only, of the pinned version', async () => {
    const plan = (await http.post('/coverage-plans', token, {
      name: 'engines', runsPerCell: 5, combos: [{ harness: 'claude', model: 'vendor/x' }],
      cases: [{ slug: 'kart', version: 'v2.0.0', variant: 'base', engine: 'simple-2d' }, { slug: 'kart', version: 'v2.0.0', variant: 'base' }],
    })).body;
    const subject = { slug: 'kart', version: 'v2.0.0', harness: 'claude', model: 'vendor/x' };
    await seedRun(backend, runRecord({ ...subject, engine: 'simple-2d' }));
    await seedRun(backend, runRecord({ ...subject, engine: 'simple-2d' }));
    await seedRun(backend, runRecord({ ...subject, engine: 'simple-2d', state: 'timed_out' }));
    await seedRun(backend, runRecord(subject));
    await seedRun(backend, runRecord({ ...subject, version: 'v1.9.0' }));
    await seedRun(backend, runRecord({ ...subject, model: 'vendor/other' }));
    const matrix = await matrixOf(plan.id);
    expect(matrix.cells.map((cell: { engine: string; completed: number; unreviewed: number }) => [cell.engine, cell.completed, cell.unreviewed])).toEqual([
      ['simple-2d', 2, 2], ['none', 1, 1],
    ]);
  });

  it('reports the held (pending) jobs as a subset of inFlight', async () => {
    const plan = (await http.post('/coverage-plans', token, {
      name: 'held', runsPerCell: 3, combos: [{ harness: 'goose', model: 'vendor/x' }], cases: [{ slug: 'kart', version: 'v2.0.0', variant: 'base' }],
      schedule: { bufferTarget: { kind: 'unbounded' } },
    })).body;
    expect((await http.put('/harness-config/goose', token, { maxParallelism: 1 })).status).toBe(200);
    expect((await http.post(`/coverage-plans/${plan.id}/topup`, token)).body.enqueued).toBe(3);
    expect(await claimNext(http, SERVICE)).not.toBeNull();
    // The cap holds the other two back on the next claim.
    expect(await claimNext(http, SERVICE)).toBeNull();
    const matrix = await matrixOf(plan.id);
    expect(matrix.cells[0]).toMatchObject({ inFlight: 3, pending: 2, remaining: 0 });
    expect(matrix).toMatchObject({ runsPending: 2, runsOutstanding: 3 });
    await http.post(`/coverage-plans/${plan.id}/halt-all`, token);
  });

  it('shares one cell between a plan’s gg member and a hand launch from the same configuration', async () => {
    const config = (await http.post('/gg/configs', token, { name: 'Solo', capabilitySet: {}, slotModels: { root: 'vendor/root' } })).body;
    const plan = (await http.post('/coverage-plans', token, {
      name: 'gg', runsPerCell: 2, combos: [{ ggConfigId: `saved:${config.id}`, ggSlotModels: {} }], cases: [{ slug: 'kart', version: 'v2.0.0', variant: 'base' }],
    })).body;
    const hand = await http.post('/gg/runs', token, { testCase: 'kart', version: 'v2.0.0', presetId: config.id });
    expect(hand.status).toBe(202);
    expect((await matrixOf(plan.id)).cells[0]).toMatchObject({ ggConfigName: 'Solo', inFlight: 1, remaining: 1 });
    const claimed = await claimNext(http, SERVICE);
    expect(claimed!.jobId).toBe(hand.body.jobId);
    await completeClaimed(http, claimed!);
    expect((await matrixOf(plan.id)).cells[0]).toMatchObject({ completed: 1, inFlight: 0, unreviewed: 1, remaining: 1 });
    // An inline capability set belongs to no configuration's cell.
    await http.post('/gg/runs', token, { testCase: 'kart', version: 'v2.0.0', capabilitySet: {}, slotModels: { root: 'vendor/root' } });
    expect((await matrixOf(plan.id)).cells[0]).toMatchObject({ inFlight: 0 });
    // Renaming the configuration renames the cell; deleting it leaves the cell, unlaunchable.
    await http.put(`/gg/configs/${config.id}`, token, { name: 'Solo 2', capabilitySet: {}, slotModels: { root: 'vendor/root' } });
    expect((await matrixOf(plan.id)).cells[0].ggConfigName).toBe('Solo 2');
    await http.delete(`/gg/configs/${config.id}`, token);
    expect((await matrixOf(plan.id)).cells[0]).toMatchObject({ ggConfigName: null, unlaunchable: `gg configuration saved:${config.id} no longer exists.` });
  });

  it('queues unreviewed runs cell by cell in plan order, oldest first within a cell, and stops at the limit', async () => {
    const plan = (await http.post('/coverage-plans', token, {
      name: 'queue order', runsPerCell: 5, combos: [{ harness: 'pi', model: 'vendor/x' }, { harness: 'cline', model: 'vendor/x' }],
      cases: [{ slug: 'kart', version: 'v2.0.0', variant: 'base', engine: 'simple-2d' }],
    })).body;
    const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
    const seeded = async (harness: string, minute: number) => {
      const record = runRecord({ slug: 'kart', version: 'v2.0.0', engine: 'simple-2d', harness, model: 'vendor/x', finishedAt: at(minute) });
      await seedRun(backend, record);
      return record.id;
    };
    // Stored out of finish order; the second cell's runs all finished before the first cell's.
    const pi = [await seeded('pi', 30), await seeded('pi', 10), await seeded('pi', 20)];
    const cline = [await seeded('cline', 2), await seeded('cline', 1)];
    const reviewed = await http.post(`/runs/${pi[1]}/reviews`, token, { ratings: [{ domain: 'play', rating: 'great' }], writeup: 'Fine.' });
    expect(reviewed.status, JSON.stringify(reviewed.body)).toBe(200);
    const queue = async (limit: number) => {
      const { runs, truncated } = (await http.get(`/coverage-plans/${plan.id}/queue?limit=${limit}`, token)).body;
      return { ids: runs.map((run: { runId: string }) => run.runId), truncated };
    };
    expect(await queue(10)).toEqual({ ids: [pi[2], pi[0], cline[1], cline[0]], truncated: false });
    expect(await queue(1)).toEqual({ ids: [pi[2]], truncated: true });
    expect(await queue(3)).toEqual({ ids: [pi[2], pi[0], cline[1]], truncated: true });
    expect(await queue(4)).toEqual({ ids: [pi[2], pi[0], cline[1], cline[0]], truncated: false });
  });

  it('never counts a machine-graded run as waiting on a review', async () => {
    const plan = (await http.post('/coverage-plans', token, {
      name: 'perf', runsPerCell: 1, combos: [{ harness: 'claude', model: 'vendor/x' }], cases: [{ slug: 'bench', version: 'v1.0.0', variant: 'base' }],
    })).body;
    await seedRun(backend, runRecord({ slug: 'bench', version: 'v1.0.0', harness: 'claude', model: 'vendor/x', testType: 'performance' }));
    expect((await matrixOf(plan.id)).cells[0]).toMatchObject({ completed: 1, unreviewed: 0 });
    expect((await http.get(`/coverage-plans/${plan.id}/queue`, token)).body).toEqual({ runs: [], truncated: false });
  });

  it('keeps an unlaunchable cell in place with its reason, and a top-up walks past it to the next cell', async () => {
    const plan = (await http.post('/coverage-plans', token, {
      name: 'unknown model', runsPerCell: 1, schedule: { bufferTarget: { kind: 'unbounded' } },
      combos: [{ harness: 'claude', model: 'vendor/uncatalogued' }, { harness: 'cline', model: 'vendor/x' }],
      cases: [{ slug: 'kart', version: 'v2.0.0', variant: 'base' }, { slug: 'kart', version: 'v2.0.0', variant: 'base', engine: 'decoupled-3d' }, { slug: 'kart', version: 'v2.0.0', variant: 'other' }],
    })).body;
    const matrix = await matrixOf(plan.id);
    const engine = 'Test case kart v2.0.0 does not declare engine "decoupled-3d".';
    const variant = 'Test case kart v2.0.0 has no variant "other".';
    expect(matrix.cells.map((cell: { unlaunchable: string | null }) => cell.unlaunchable)).toEqual([
      'The model catalog has no entry for vendor/uncatalogued; add it to the catalog before launching it.', null, engine, engine, variant, variant,
    ]);
    const topUp = (await http.post(`/coverage-plans/${plan.id}/topup`, token)).body;
    expect(topUp.enqueued).toBe(1);
    expect(topUp.cells).toEqual([expect.objectContaining({ engine: 'none', harness: 'cline', model: 'vendor/x', runs: 1, jobIds: [expect.any(String)] })]);
    expect(topUp.unlaunchable.map((item: { reason: string }) => item.reason)).toEqual([matrix.cells[0].unlaunchable, engine, engine, variant, variant]);
  });
});
