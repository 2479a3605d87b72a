import { describe, expect, it } from 'vitest';
import { THIS_RUNNER, runnerGone } from '../../src/probes/probe-runner.js';
import { probeStore, type NewProbeItem, type Probe } from '../../src/probes/probe-store.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';

const stores = engineStores();

const probe = (id: string, modelSlug: string, createdAt = '2026-11-26T10:00:00.000Z') => ({
  id, modelSlug, openrouterSlug: modelSlug, provider: null, language: 'rust', samples: 2, maxTokens: 1000, callCount: 4, createdAt,
});

const item = (overrides: Partial<NewProbeItem> = {}): NewProbeItem => ({
  language: 'rust', scenario: 'edit', prompt: 'p', sample: 0, provider: 'Acme', finishReason: 'stop', nativeFinishReason: null, label: 'clean',
  pass: true, programText: null, responseText: 'ok', reasoningText: null, promptTokens: 10, completionTokens: 20, cost: 0.1, durationMs: 5,
  error: null, ...overrides,
});

const failed = (error: string) => ({ status: 'failed' as const, error, verdict: null, passRate: null });

describe.each(ENGINES)('the probe store on %s', (engine) => {
  it('keeps one running probe per model and lists a model\'s probes newest first, ties in one order', async () => {
    const probes = probeStore(await stores.fresh(engine));
    expect(await probes.create(probe('p1', 'vendor/a', '2026-11-26T10:00:00.000Z'), [{ language: 'rust', scenario: 'edit', prompt: 'p', messages: [] }])).toBe(true);
    expect(await probes.create(probe('p2', 'vendor/a', '2026-11-26T11:00:00.000Z'), [])).toBe(false);
    expect((await probes.running('vendor/a'))!.id).toBe('p1');
    expect(await probes.finish('p1', { status: 'complete', error: null, verdict: 'ready', passRate: 0.75 })).toBe(true);
    expect(await probes.finish('p1', failed('late'))).toBe(false);
    expect(await probes.running('vendor/a')).toBeNull();
    for (const id of ['p3', 'p2']) {
      expect(await probes.create(probe(id, 'vendor/a', '2026-11-26T12:00:00.000Z'), [])).toBe(true);
      await probes.finish(id, failed('x'));
    }
    expect((await probes.ofModel('vendor/a')).map((row) => row.id)).toEqual(['p3', 'p2', 'p1']);
    expect(await probes.get('p1')).toMatchObject<Partial<Probe>>({ status: 'complete', verdict: 'ready', passRate: 0.75, finishedAt: expect.any(String) });
    expect(await probes.requests('p1')).toEqual([{ language: 'rust', scenario: 'edit', prompt: 'p', messages: [] }]);
    expect(await probes.requests('none')).toEqual([]);
  });

  it('moves the counts with each item, sums the spend in doubles, and takes no item once the probe ended', async () => {
    const probes = probeStore(await stores.fresh(engine));
    await probes.create(probe('p1', 'vendor/a'), []);
    expect(await probes.addItem('p1', item({ cost: 0.1 }))).toBe(true);
    expect(await probes.addItem('p1', item({ sample: 1, cost: 0.2, pass: false, label: null, error: 'timed out' }))).toBe(true);
    expect(await probes.addItem('p1', item({ sample: 2, cost: null, error: 'refused' }))).toBe(true);
    expect(await probes.get('p1')).toMatchObject({ itemCount: 3, passCount: 2, errorCount: 2, spend: 0.3 });
    expect((await probes.items('p1')).map((row) => [row.sample, row.pass, row.cost, row.label])).toEqual([[0, true, 0.1, 'clean'], [1, false, 0.2, null], [2, true, null, 'clean']]);
    expect(await probes.verdictItems('p1')).toEqual(expect.arrayContaining([{ language: 'rust', scenario: 'edit', label: null, pass: false }]));
    expect(await probes.firstError('p1')).toBe('timed out');

    await probes.finish('p1', failed('The worker running this probe stopped before it finished.'));
    expect(await probes.addItem('p1', item())).toBe(false);
    expect(await probes.get('p1')).toMatchObject({ itemCount: 3, status: 'failed' });
    expect(await probes.items('p1')).toHaveLength(3);
    expect(await probes.addItem('none', item())).toBe(false);
  });

  it('fails only the running probes whose recorded runner process is gone', async () => {
    const probes = probeStore(await stores.fresh(engine));
    const [scope] = THIS_RUNNER.split('/');
    // This process's pid with another start time: the pid was reused, the runner is gone.
    const gone = `${scope}/${process.pid}/1`;
    for (const [id, runner] of [['live', THIS_RUNNER], ['dead', gone], ['elsewhere', 'other-host|pid:[1]/7/7'], ['queued', null]] as const) {
      await probes.create(probe(id, `vendor/${id}`), []);
      if (runner) expect(await probes.takeRunner(id, runner)).toBe(true);
    }
    await probes.create(probe('ended', 'vendor/ended'), []);
    await probes.takeRunner('ended', gone);
    await probes.finish('ended', { status: 'complete', error: null, verdict: 'ready', passRate: 1 });
    expect(await probes.takeRunner('ended', gone)).toBe(false);

    expect(await probes.failOrphaned('stopped', runnerGone)).toEqual(['dead']);
    expect(await probes.get('dead')).toMatchObject({ status: 'failed', error: 'stopped' });
    for (const id of ['live', 'elsewhere', 'queued']) expect((await probes.get(id))!.status).toBe('running');
    expect((await probes.get('ended'))!.status).toBe('complete');
    expect(await probes.failOrphaned('stopped', runnerGone)).toEqual([]);
  });
});
