import { describe, expect, it } from 'vitest';
import { ggConfigsTable } from '../../src/db/gg-configs-table.js';
import { harnessConfigTable } from '../../src/db/harness-config-table.js';
import { jobStateCounts } from '../../src/db/job-state-counts.js';
import { jobsTable } from '../../src/db/jobs-table.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';
import { jobRow } from '../helpers/temp-store.js';

const stores = engineStores();
const AT = '2026-11-27T10:00:00.000Z';
const LATER = '2026-11-27T11:00:00.000Z';

describe.each(ENGINES)('the run-job store on %s', (engine) => {
  it('answers seqs in enqueue order and pages the jobs in flight after a seq, leaving out finished ones', async () => {
    const jobs = jobsTable(await stores.fresh(engine));
    const seqs = await jobs.insert(Array.from({ length: 7 }, (_, i) => jobRow(`j${i}`, { harnessSlug: i % 2 ? 'codex' : 'claude' })));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(7);
    await jobs.markAllFinished(['j1', 'j4'], 'canceled', 'stop', AT);

    expect((await jobs.inFlight()).map((job) => job.id)).toEqual(['j0', 'j2', 'j3', 'j5', 'j6']);
    const first = await jobs.inFlight({ limit: 2 });
    expect(first.map((job) => job.id)).toEqual(['j0', 'j2']);
    expect((await jobs.inFlight({ after: first.at(-1)!.seq, limit: 2 })).map((job) => job.id)).toEqual(['j3', 'j5']);
    expect((await jobs.inFlight({ after: seqs.at(-1)!, limit: 2 }))).toEqual([]);

    const active = await jobs.activeList({ after: seqs[2]!, limit: 10 });
    expect(active.map((job) => job.id)).toEqual(['j3', 'j5', 'j6']);
    expect(active[0]).toEqual({
      seq: seqs[3], id: 'j3', state: 'queued', testCaseSlug: 'carom', testCaseVersion: 'v1.1.0', variant: 'base', harnessSlug: 'codex',
      modelId: 'm', engine: null, ggPreset: null, origin: null, enqueuedAt: '2026-11-26T00:00:00.000Z', startedAt: null,
    });
  });

  it('reads a whole row with its nulls, and tells an unknown job from one not claimed yet', async () => {
    const jobs = jobsTable(await stores.fresh(engine));
    const [seq] = await jobs.insert([jobRow('j1', { origin: 'plan:p', request: '{"note":"ωmega"}' })]);
    expect(await jobs.get('j1')).toEqual({
      ...jobRow('j1', { origin: 'plan:p', request: '{"note":"ωmega"}' }), seq, state: 'queued', tokenHash: null, recordId: null, detail: null,
      dispatchedAt: null, startedAt: null, finishedAt: null,
    });
    expect(await jobs.get('nope')).toBeNull();
    expect(await jobs.tokenHash('j1')).toBeNull();
    expect(await jobs.tokenHash('nope')).toBeUndefined();
  });

  it('writes a batch of claims in one statement, moving only waiting rows to dispatched and never a row back', async () => {
    const jobs = jobsTable(await stores.fresh(engine));
    const [a, b, c, d] = await jobs.insert([jobRow('a'), jobRow('b'), jobRow('c'), jobRow('d')]);
    await jobs.markWaiting(['b'], 'pending');
    await jobs.markStarted('c', 'running', AT);
    await jobs.markFinished('d', 'canceled', 'stop', null, AT);
    await jobs.markAllDispatched([
      { seq: a!, tokenHash: 'ha', at: AT }, { seq: b!, tokenHash: 'hb', at: AT }, { seq: c!, tokenHash: 'hc', at: AT }, { seq: d!, tokenHash: 'hd', at: LATER },
    ]);
    const rows = await Promise.all(['a', 'b', 'c', 'd'].map((id) => jobs.get(id)));
    expect(rows.map((row) => [row!.state, row!.tokenHash, row!.dispatchedAt])).toEqual([
      ['dispatched', 'ha', AT], ['dispatched', 'hb', AT], ['running', 'hc', AT], ['canceled', 'hd', LATER],
    ]);
    expect((await jobs.inFlight()).map((job) => job.id)).toEqual(['a', 'b', 'c']);
  });

  it('keeps the first start and the first finish, and a record already attached', async () => {
    const jobs = jobsTable(await stores.fresh(engine));
    await jobs.insert([jobRow('j1'), jobRow('j2')]);
    await jobs.markStarted('j1', 'starting', AT);
    await jobs.markStarted('j1', 'running', LATER);
    await jobs.markFinished('j1', 'succeeded', null, 'run-1', AT);
    await jobs.markFinished('j1', 'failed', 'late', null, LATER);
    expect(await jobs.get('j1')).toMatchObject({ state: 'succeeded', startedAt: AT, finishedAt: AT, recordId: 'run-1', detail: null });
    await jobs.attachRecord('j2', 'run-2');
    await jobs.markAllFinished(['j2'], 'canceled', 'stop', LATER);
    expect(await jobs.get('j2')).toMatchObject({ state: 'canceled', recordId: 'run-2', finishedAt: LATER });
  });

  // Issue 39 item 1: copies reach the store from several processes, retried, so a late one
  // (a `running` report's copy landing after another process's cancel) must not undo a later one.
  it('moves a row forward only: a late waiting or started copy never brings a finished job back, and a running one is never told starting', async () => {
    const jobs = jobsTable(await stores.fresh(engine));
    await jobs.insert([jobRow('c'), jobRow('r'), jobRow('w')]);
    await jobs.markAllFinished(['c'], 'canceled', 'Canceled by ana.', AT);
    await jobs.markStarted('c', 'running', LATER);
    await jobs.markWaiting(['c'], 'queued');
    expect(await jobs.get('c')).toMatchObject({ state: 'canceled', detail: 'Canceled by ana.', startedAt: null, finishedAt: AT });

    await jobs.markStarted('r', 'running', AT);
    await jobs.markStarted('r', 'starting', LATER);
    await jobs.markWaiting(['r'], 'pending');
    expect(await jobs.get('r')).toMatchObject({ state: 'running', startedAt: AT, finishedAt: null });

    await jobs.markWaiting(['w'], 'pending');
    await jobs.markWaiting(['w'], 'queued');
    expect(await jobs.get('w')).toMatchObject({ state: 'queued', finishedAt: null });
    expect((await jobs.inFlight()).map((job) => job.id)).toEqual(['r', 'w']);
  });

  it('writes a batch of copies in one transaction, each forward only, whatever their order', async () => {
    const jobs = jobsTable(await stores.fresh(engine));
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    await jobs.insert(ids.map((id) => jobRow(id)));
    await jobs.markAllFinished(['f'], 'canceled', 'first', AT);
    await jobs.copyStates([
      { id: 'a', state: 'pending' },
      { id: 'b', state: 'running', at: AT },
      { id: 'c', state: 'succeeded', detail: null, recordId: 'run-c', at: AT },
      { id: 'd', state: 'canceled', detail: 'sweep', recordId: null, at: AT },
      { id: 'e', state: 'canceled', detail: 'sweep', recordId: null, at: AT },
      // Late copies: each loses to what is written already.
      { id: 'c', state: 'running', at: LATER },
      { id: 'd', state: 'queued' },
      { id: 'f', state: 'failed', detail: 'second', recordId: null, at: LATER },
    ]);
    const rows = await Promise.all(ids.map((id) => jobs.get(id)));
    expect(rows.map((row) => [row!.id, row!.state, row!.detail, row!.recordId, row!.startedAt, row!.finishedAt])).toEqual([
      ['a', 'pending', null, null, null, null],
      ['b', 'running', null, null, AT, null],
      ['c', 'succeeded', null, 'run-c', null, AT],
      ['d', 'canceled', 'sweep', null, null, AT],
      ['e', 'canceled', 'sweep', null, null, AT],
      ['f', 'canceled', 'first', null, null, AT],
    ]);
  });

  it('rolls a batch back whole when it fails midway', async () => {
    const jobs = jobsTable(await stores.fresh(engine));
    await jobs.insert([jobRow('j1'), jobRow('j2')]);
    const failed = jobs.batch(async (trx) => {
      await trx.markFinished('j1', 'failed', 'x', null, AT);
      await trx.markWaiting(['j2'], 'pending');
      throw new Error('midway');
    });
    await expect(failed).rejects.toThrow('midway');
    expect((await jobs.inFlight()).map((job) => `${job.id}:${job.state}`)).toEqual(['j1:queued', 'j2:queued']);
    await jobs.batch(async (trx) => {
      await trx.markFinished('j1', 'failed', 'x', null, AT);
      await trx.markWaiting(['j2'], 'pending');
    });
    expect((await jobs.inFlight()).map((job) => `${job.id}:${job.state}`)).toEqual(['j2:pending']);
  });

  it('inserts a launch larger than one statement binds, all or nothing', async () => {
    const jobs = jobsTable(await stores.fresh(engine));
    const seqs = await jobs.insert(Array.from({ length: 4000 }, (_, i) => jobRow(`j${i}`)));
    expect(seqs).toHaveLength(4000);
    expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
    // A duplicate id in the last chunk fails the whole launch.
    await expect(jobs.insert([...Array.from({ length: 3000 }, (_, i) => jobRow(`k${i}`)), jobRow('j0')])).rejects.toThrow();
    expect(await jobs.get('k0')).toBeNull();
  });

  it('counts jobs in flight per harness and state, in byte order, as numbers', async () => {
    const store = await stores.fresh(engine);
    const jobs = jobsTable(store);
    await jobs.insert([jobRow('j1'), jobRow('j2'), jobRow('j3', { harnessSlug: 'Zed' }), jobRow('j4', { harnessSlug: 'claude' }), jobRow('j5')]);
    await jobs.markWaiting(['j2'], 'pending');
    await jobs.markAllFinished(['j5'], 'failed', null, AT);
    expect(await jobStateCounts(store)()).toEqual([
      { harness: 'Zed', state: 'queued', jobs: 1 },
      { harness: 'claude', state: 'queued', jobs: 1 },
      { harness: 'codex', state: 'pending', jobs: 1 },
      { harness: 'codex', state: 'queued', jobs: 1 },
    ]);
  });

  it('keeps gg configurations per account, in creation order, JSON intact', async () => {
    const configs = ggConfigsTable(await stores.fresh(engine));
    const first = await configs.create('a', { name: 'Duo ✦', capabilitySet: { tools: true, nested: { n: 1.5 } }, slotModels: { lead: 'vendor/m' } });
    const second = await configs.create('a', { name: 'Solo', capabilitySet: {}, slotModels: {} });
    await configs.create('b', { name: 'Other', capabilitySet: {}, slotModels: {} });
    const listed = await configs.list('a');
    expect(listed.map((config) => config.id).sort()).toEqual([first.id, second.id].sort());
    expect(await configs.get('a', first.id)).toEqual(first);
    expect(await configs.get('b', first.id)).toBeNull();
    expect(await configs.update('b', first.id, { name: 'x', capabilitySet: {}, slotModels: {} })).toBeNull();
    expect(await configs.update('a', first.id, { name: 'Duo 2', capabilitySet: { tools: false }, slotModels: {} })).toEqual({
      id: first.id, name: 'Duo 2', capabilitySet: { tools: false }, slotModels: {},
    });
    expect((await configs.get('a', first.id))!.name).toBe('Duo 2');
    expect(await configs.delete('b', first.id)).toBe(false);
    expect(await configs.delete('a', first.id)).toBe(true);
    expect(await configs.delete('a', first.id)).toBe(false);
    expect((await configs.list('a')).map((config) => config.id)).toEqual([second.id]);
  });

  it('stores harness caps with revisions newer than any before, a cleared cap kept as uncapped', async () => {
    const caps = harnessConfigTable(await stores.fresh(engine));
    const one = await caps.set('codex', 2);
    const two = await caps.set('claude', null);
    const three = await caps.set('codex', 5);
    expect(one).toBeLessThan(two);
    expect(two).toBeLessThan(three);
    expect(await caps.caps()).toEqual(new Map([['codex', 5]]));
    expect((await caps.rows()).sort((x, y) => x.slug.localeCompare(y.slug))).toEqual([
      { slug: 'claude', maxParallelism: null, revision: two },
      { slug: 'codex', maxParallelism: 5, revision: three },
    ]);
  });

  it('gives concurrent cap writers distinct revisions', async () => {
    const store = await stores.fresh(engine);
    const caps = harnessConfigTable(store);
    const revisions = await Promise.all(Array.from({ length: 40 }, (_, i) => caps.set(i % 2 ? 'codex' : 'claude', i + 1)));
    expect(new Set(revisions).size).toBe(40);
    const stored = await caps.rows();
    // Each slug keeps the cap of its newest revision.
    for (const row of stored) expect(row.revision).toBe(Math.max(...revisions.filter((_, i) => (i % 2 ? 'codex' : 'claude') === row.slug)));
  });
});
