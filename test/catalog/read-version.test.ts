import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readVersion } from '../../src/catalog/read-version.js';
import { verdictIdsOf } from '../../src/catalog/read-review-items.js';
import { CAROM, COIN_SPIN, FIXTURE, FLOE, GRACE_PERIOD } from './catalog-test-helpers.js';

const read = (dir: string) => readVersion(FIXTURE, join(FIXTURE, dir));

describe('readVersion on the fixture catalog', () => {
  it('reads all four versions unchanged', async () => {
    const records = await Promise.all([CAROM, FLOE, COIN_SPIN, GRACE_PERIOD].map(read));
    expect(records.map(({ record }) => `${record.slug}@${record.version}`)).toEqual([
      'pong@v1.1.0', 'floe@v3.0.0', 'coin-spin@v1.0.0', 'grace-period@v1.0.0',
    ]);
  });

  it('keys carom by the slug its manifest declares, not its folder', async () => {
    const { record } = await read(CAROM);
    expect(record.slug).toBe('pong');
    expect(record.name).toBe('Carom');
    expect(record.variants.map((variant) => variant.slug)).toEqual(['base', 'multi', 'gyre']);
  });

  it('converts fractional runtime hours to whole seconds', async () => {
    expect((await read(CAROM)).record.maxRuntimeSeconds).toBe(5400);
    expect((await read(COIN_SPIN)).record.maxRuntimeSeconds).toBe(1800);
    expect((await read(FLOE)).record.maxRuntimeSeconds).toBe(5 * 3600);
  });

  it('serves floe as engine format, with domains and failure caps on every item', async () => {
    const { record } = await read(FLOE);
    expect(record.engineFormat).toBe(true);
    expect(record.commonReviewItems).toHaveLength(216);
    const first = record.commonReviewItems[0]!;
    expect(first).toMatchObject({
      id: 'instrumentation.surface-present',
      category: { id: 'instrumentation', title: 'Instrumentation' },
      domains: ['hunter', 'crossing', 'run', 'presentation'],
      failureCap: 'broken',
      validation: { script: 'instrumentation/surface-present.test.ts', outputs: [{ id: 'state', kind: 'image' }] },
    });
    expect(record.commonReviewItems.every((item) => item.failureCap && item.domains?.length)).toBe(true);
  });

  it('serves pinned engines with their bounds and bare ones without, none first', async () => {
    const { record } = await read(FLOE);
    expect(record.engines).toEqual([
      { slug: 'none' },
      { slug: 'simple-2d', minVersion: '1.0.0' },
      { slug: 'structured-2d', minVersion: '1.0.0' },
    ]);
    expect(record.workspaces).toEqual([
      { engine: 'none', source: 'workspaces/none' },
      { engine: 'simple-2d', source: 'workspaces/simple-2d' },
      { engine: 'structured-2d', source: 'workspaces/structured-2d' },
    ]);
  });

  it('serves floe specs with store-relative sources, .hbs as templates, and asset folders', async () => {
    const { record } = await read(FLOE);
    expect(record.commonSpecs[0]).toEqual({ source: 'specs/overview.md.hbs', dest: 'specs/overview.md', template: true, kind: 'spec' });
    expect(record.commonSpecs[1]).toEqual({ source: 'specs/strait.md', dest: 'specs/strait.md', template: false, kind: 'spec' });
    expect(record.assets).toContainEqual({ source: 'assets/bear', dest: 'assets/bear' });
    expect(record['toolchain']).toEqual({ typecheck: 'npx tsc --noEmit', lint: 'npx eslint .', format: 'npx prettier --check .', test: 'npx vitest run --coverage' });
    expect(record['instrumentation']).toEqual({ handle: '__floe' });
  });

  it('reads floe\'s showcase and never lists showcase.toml as media', async () => {
    const result = await read(FLOE);
    expect(result.record.variants[0]!.showcase).toEqual({
      description: expect.stringContaining('PLACEHOLDER'),
      media: [{ file: 'title.png', name: 'The title screen', kind: 'image' }],
    });
    expect(result.showcaseDirs).toEqual({ base: 'showcase/base' });
  });

  it('lists carom\'s mockups to render, common and per variant, with their media URLs', async () => {
    const result = await read(CAROM);
    expect(result.record.commonReferences).toEqual([
      { view: 'gameplay', kind: 'rendered', mediaUrl: '/test-cases/pong/versions/v1.1.0/references/_common/gameplay.png' },
      { view: 'game-over', kind: 'rendered', mediaUrl: '/test-cases/pong/versions/v1.1.0/references/_common/game-over.png' },
    ]);
    expect(result.record.variants[2]!.references).toEqual([
      { view: 'title', kind: 'rendered', mediaUrl: '/test-cases/pong/versions/v1.1.0/references/gyre/title.png' },
    ]);
    expect(result.referencesToRender).toEqual([
      { view: 'gameplay', scope: '_common', htmlPath: 'reference/gameplay.html', outFile: 'gameplay.png', viewport: null },
      { view: 'game-over', scope: '_common', htmlPath: 'reference/game-over.html', outFile: 'game-over.png', viewport: null },
      { view: 'title', scope: 'base', htmlPath: 'reference/menu-base.html', outFile: 'title.png', viewport: null },
      { view: 'title', scope: 'multi', htmlPath: 'reference/menu-multi.html', outFile: 'title.png', viewport: null },
      { view: 'title', scope: 'gyre', htmlPath: 'reference/menu-gyre.html', outFile: 'title.png', viewport: null },
    ]);
    expect(result.staticReferences).toEqual([]);
  });

  it('reads carom\'s legacy checklist with sub item verdict ids and per-variant items', async () => {
    const { record } = await read(CAROM);
    expect(record.engineFormat).toBe(false);
    const spin = record.commonReviewItems.find((item) => item.id === 'ball-spin')!;
    expect(spin.subItems.map((sub) => sub.id)).toEqual(['ball-spin.stationary', 'ball-spin.moving']);
    expect(verdictIdsOf(spin)).toEqual(['ball-spin.stationary', 'ball-spin.moving']);
    expect(spin).not.toHaveProperty('failureCap');
    expect(record.commonReviewItems.find((item) => item.id === 'ai-beatable')?.domain).toBe('single-player');
    expect(record.variants[1]!.reviewItems.map((item) => item.id)).toContain('multi-three-balls');
    expect(record.commonProofs.find((proof) => proof.id === 'rally')).toEqual({ id: 'rally', name: 'Rally clip', dest: 'proof/rally.webm', kind: 'video' });
  });

  it('renders each variant\'s stored prompt for no engine, with its own seeded specs listed', async () => {
    const { record } = await read(CAROM);
    expect(record.promptTemplate).toContain('{{workspace}}');
    expect(record.variants[0]!.prompt).toContain('Your project root is `/work`.');
    expect(record.variants[0]!.prompt).not.toContain('{{');
    expect(record.variants[0]!.specs.map((spec) => spec.dest)).toEqual(['specs/obstacles.md', 'specs/balls.md']);
  });

  it('passes coin-spin\'s per-kind blocks through camelCased, with its asset kind', async () => {
    const { record } = await read(COIN_SPIN);
    expect(record.testType).toBe('asset-generation');
    expect(record.assetKind).toBe('sprite-sheet');
    expect(record.build).toBeNull();
    expect(record['canvas']).toEqual({ width: 32, height: 32, background: 'transparent' });
    expect(record['tool']).toEqual({ binary: 'draw-sheet', preview: 'frames/{frame}.png' });
    expect(record['output']).toEqual({ actions: 'frames/{frame}.actions.json' });
    expect(record['sheet']).toMatchObject({ sequence: [{ slug: 'spin', frames: [0, 1, 2, 3, 4, 5], fps: 12 }] });
  });

  it('reads the game jam with its implicit variant and its time budget in the prompt', async () => {
    const { record } = await read(GRACE_PERIOD);
    expect(record.testType).toBe('game-jam');
    expect(record.difficulty).toBe('');
    expect(record.maxRuntimeSeconds).toBe(8 * 3600);
    expect(record.variants.map((variant) => variant.slug)).toEqual(['base']);
    expect(record.variants[0]!.prompt).toContain('about 8 hours');
    expect(record.commonSpecs).toEqual([]);
  });

  it('defaults what the fixture leaves out', async () => {
    const { record } = await read(CAROM);
    expect(record.testType).toBe('end-to-end');
    // Not an asset case, and it names no asset kind.
    expect(record.assetKind).toBeNull();
    expect(record.experimental).toBe(false);
    expect(record.errata).toEqual([]);
    expect(record.checks).toEqual([]);
    expect(record.description).toMatch(/^## Overview/);
  });
});
