import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readVersion } from '../../src/catalog/read-version.js';
import { verdictIdsOf } from '../../src/catalog/read-review-items.js';
import { CRABBER, EXAMPLE_CATALOG, LOW_TIDE, minimalCase, REGATTA, tempDir, writeVersion } from './catalog-test-helpers.js';

const read = (dir: string) => readVersion(EXAMPLE_CATALOG, join(EXAMPLE_CATALOG, dir));

/** An asset-generation case with the per-kind blocks a sprite-sheet case declares. */
async function spriteSheetCase() {
  const root = await tempDir();
  const dir = await writeVersion(root, 'test-cases/asset-generation/easy/pennant/v1.0.0', minimalCase('pennant', {
    manifest: [
      'max_runtime_hours = 0.5',
      'type = "asset-generation"',
      'asset_kind = "sprite-sheet"',
      '[canvas]', 'width = 24', 'height = 16', 'background = "transparent"',
      '[tool]', 'binary = "draw-sheet"', 'preview = "frames/{frame}.png"',
      '[output]', 'actions = "frames/{frame}.actions.json"',
      '[sheet]', '[[sheet.frame]]', 'index = 0', '[[sheet.frame]]', 'index = 1',
      '[[sheet.sequence]]', 'slug = "flutter"', 'name = "Flutter"', 'frames = [0, 1]', 'fps = 8',
    ].join('\n'),
  }));
  return readVersion(root, dir);
}

describe('readVersion on the example catalog', () => {
  it('keys regatta by the slug its manifest declares, not its folder', async () => {
    const { record } = await read(REGATTA);
    expect(record.slug).toBe('skiff-race');
    expect(record.name).toBe('Regatta');
    expect(record.variants.map((variant) => variant.slug)).toEqual(['base', 'fleet', 'gusts']);
  });

  it('converts fractional runtime hours to whole seconds', async () => {
    expect((await read(REGATTA)).record.maxRuntimeSeconds).toBe(5400);
    expect((await spriteSheetCase()).record.maxRuntimeSeconds).toBe(1800);
    expect((await read(CRABBER)).record.maxRuntimeSeconds).toBe(4 * 3600);
  });

  it('serves crabber as engine format, with domains and failure caps on every item', async () => {
    const { record } = await read(CRABBER);
    expect(record.engineFormat).toBe(true);
    expect(record.commonReviewItems).toHaveLength(14);
    const first = record.commonReviewItems[0]!;
    expect(first).toMatchObject({
      id: 'surface.present',
      category: { id: 'surface', title: 'Debug surface' },
      domains: ['boat', 'catch', 'run', 'presentation'],
      failureCap: 'broken',
      validation: { script: 'surface/present.test.ts', outputs: [{ id: 'posed', kind: 'image' }] },
    });
    expect(record.commonReviewItems.every((item) => item.failureCap && item.domains?.length)).toBe(true);
  });

  it('serves pinned engines with their bounds and bare ones without, none first', async () => {
    const { record } = await read(CRABBER);
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

  it('serves crabber specs with store-relative sources, .hbs as templates, and asset folders', async () => {
    const { record } = await read(CRABBER);
    expect(record.commonSpecs[0]).toEqual({ source: 'specs/overview.md.hbs', dest: 'specs/overview.md', template: true, kind: 'spec' });
    expect(record.commonSpecs[1]).toEqual({ source: 'specs/harbor.md', dest: 'specs/harbor.md', template: false, kind: 'spec' });
    expect(record.assets).toContainEqual({ source: 'assets/crab', dest: 'assets/crab' });
    expect(record['toolchain']).toEqual({ typecheck: 'npx tsc --noEmit', lint: 'npx eslint .', test: 'npx vitest run' });
    expect(record['instrumentation']).toEqual({ handle: '__crabber' });
  });

  it('reads crabber\'s showcase and never lists showcase.toml as media', async () => {
    const result = await read(CRABBER);
    expect(result.record.variants[0]!.showcase).toEqual({
      description: expect.stringContaining('reference build under `simple-2d`'),
      media: [
        { file: 'title.png', name: 'The title screen', kind: 'image' },
        { file: 'hauling.png', name: 'Hauling a full pot with a gull closing in', kind: 'image' },
      ],
    });
    expect(result.showcaseDirs).toEqual({ base: 'showcase/base' });
  });

  it('lists regatta\'s mockups to render, common and per variant, with their media URLs', async () => {
    const result = await read(REGATTA);
    expect(result.record.commonReferences).toEqual([
      { view: 'gameplay', kind: 'rendered', mediaUrl: '/test-cases/skiff-race/versions/v1.1.0/references/_common/gameplay.png' },
      { view: 'finish', kind: 'rendered', mediaUrl: '/test-cases/skiff-race/versions/v1.1.0/references/_common/finish.png' },
    ]);
    expect(result.record.variants[2]!.references).toEqual([
      { view: 'title', kind: 'rendered', mediaUrl: '/test-cases/skiff-race/versions/v1.1.0/references/gusts/title.png' },
    ]);
    expect(result.referencesToRender).toEqual([
      { view: 'gameplay', scope: '_common', htmlPath: 'reference/gameplay.html', outFile: 'gameplay.png', viewport: null },
      { view: 'finish', scope: '_common', htmlPath: 'reference/finish.html', outFile: 'finish.png', viewport: null },
      { view: 'title', scope: 'base', htmlPath: 'reference/title-base.html', outFile: 'title.png', viewport: null },
      { view: 'title', scope: 'fleet', htmlPath: 'reference/title-fleet.html', outFile: 'title.png', viewport: null },
      { view: 'title', scope: 'gusts', htmlPath: 'reference/title-gusts.html', outFile: 'title.png', viewport: null },
    ]);
    expect(result.staticReferences).toEqual([]);
    // Crabber declares its stage size, so its one mockup renders at it.
    expect((await read(CRABBER)).referencesToRender).toEqual([
      { view: 'title', scope: '_common', htmlPath: 'reference/title.html', outFile: 'title.png', viewport: { width: 1200, height: 640 } },
    ]);
  });

  it('reads regatta\'s legacy checklist with sub item verdict ids and per-variant items', async () => {
    const { record } = await read(REGATTA);
    expect(record.engineFormat).toBe(false);
    const sail = record.commonReviewItems.find((item) => item.id === 'points-of-sail')!;
    expect(sail.subItems.map((sub) => sub.id)).toEqual(['points-of-sail.no-go', 'points-of-sail.reach']);
    expect(verdictIdsOf(sail)).toEqual(['points-of-sail.no-go', 'points-of-sail.reach']);
    expect(sail).not.toHaveProperty('failureCap');
    expect(record.commonReviewItems.find((item) => item.id === 'cpu-skipper')?.domain).toBe('solo');
    expect(record.domains.map((domain) => domain.id)).toEqual(['solo', 'duel']);
    expect(record.variants[1]!.reviewItems.map((item) => item.id)).toContain('fleet-size');
    expect(record.commonProofs.find((proof) => proof.id === 'race')).toEqual({ id: 'race', name: 'A full lap', dest: 'proof/race.webm', kind: 'video' });
  });

  it('renders each variant\'s stored prompt for no engine, with its own seeded specs listed', async () => {
    const { record } = await read(REGATTA);
    expect(record.promptTemplate).toContain('{{workspace}}');
    expect(record.variants[0]!.prompt).toContain('Your project root is `/work`');
    expect(record.variants[0]!.prompt).not.toContain('{{');
    expect(record.variants[0]!.specs.map((spec) => spec.dest)).toEqual(['specs/wind.md', 'specs/course.md']);
  });

  it('passes an asset case\'s per-kind blocks through camelCased, with its asset kind', async () => {
    const { record } = await spriteSheetCase();
    expect(record.testType).toBe('asset-generation');
    expect(record.assetKind).toBe('sprite-sheet');
    expect(record.build).toBeNull();
    expect(record['canvas']).toEqual({ width: 24, height: 16, background: 'transparent' });
    expect(record['tool']).toEqual({ binary: 'draw-sheet', preview: 'frames/{frame}.png' });
    expect(record['output']).toEqual({ actions: 'frames/{frame}.actions.json' });
    expect(record['sheet']).toMatchObject({ sequence: [{ slug: 'flutter', frames: [0, 1], fps: 8 }] });
  });

  it('reads the game jam with its implicit variant and its time budget in the prompt', async () => {
    const { record } = await read(LOW_TIDE);
    expect(record.testType).toBe('game-jam');
    expect(record.difficulty).toBe('');
    expect(record.maxRuntimeSeconds).toBe(4 * 3600);
    expect(record.variants.map((variant) => variant.slug)).toEqual(['base']);
    expect(record.variants[0]!.prompt).toContain('**4 hours**');
    expect(record.commonSpecs).toEqual([]);
  });

  it('defaults what the manifest leaves out', async () => {
    const { record } = await read(REGATTA);
    expect(record.testType).toBe('end-to-end');
    // Not an asset case, and it names no asset kind.
    expect(record.assetKind).toBeNull();
    expect(record.experimental).toBe(false);
    expect(record.errata).toEqual([]);
    expect(record.checks).toEqual([]);
    expect(record.description).toMatch(/^## Overview/);
  });
});
