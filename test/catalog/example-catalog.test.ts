import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildCatalogEntry, listValidationFiles, readGroups, readVersion, renderVariantPrompt, renderVariantSpecs,
  scanCheckout, verdictIdsOf, type ReadVersionResult, type ScanResult,
} from '../../src/catalog/index.js';
import { FUNCTIONAL_TIERS } from '../../src/catalog/catalog-vocabulary.js';
import { createRenderPool } from '../../src/render/render-pool.js';
import { tempDir } from './catalog-test-helpers.js';

/**
 * The example catalog the service ingests by default (CATALOG_DIR=./examples/catalog).
 * A new user's first `POST /ingest` reads it, so every version must read cleanly with the
 * real reader, every template must render, and every mockup must render on its own.
 */
const ROOT = resolve(__dirname, '../../examples/catalog');

const BEACON_V1 = 'test-cases/end-to-end/easy/beacon/v1.0.0';
const BEACON_V1_1 = 'test-cases/end-to-end/easy/beacon/v1.1.0';
const TUGLINE = 'test-cases/end-to-end/medium/tugline/v1.0.0';
const LOW_TIDE = 'game-jams/low-tide/v1.0.0';
const FOGHORN = 'game-jams/foghorn/v1.0.0';
const REGATTA = 'test-cases/end-to-end/easy/regatta/v1.1.0';
const CRABBER = 'test-cases/end-to-end/easy/crabber/v2.0.0';
const BUOY = 'test-cases/asset-generation/easy/buoy/v1.0.0';
const GULL = 'test-cases/asset-generation/easy/gull/v1.0.0';

let scan: ScanResult;
const reads = new Map<string, ReadVersionResult>();
const read = (relDir: string) => reads.get(relDir)!;

beforeAll(async () => {
  scan = await scanCheckout(ROOT);
  // readVersion throws a CatalogFileError naming the file on any problem, so a broken
  // manifest fails here with a message that says where.
  for (const found of scan.versions) reads.set(found.relDir, await readVersion(ROOT, found.dir));
});

describe('the example catalog', () => {
  it('holds exactly the expected versions, with no problems', () => {
    expect(scan.problems).toEqual([]);
    expect(scan.versions.map(({ slug, version, kind, relDir }) => ({ slug, version, kind, relDir }))).toEqual([
      { slug: 'foghorn', version: 'v1.0.0', kind: 'game-jam', relDir: FOGHORN },
      { slug: 'low-tide', version: 'v1.0.0', kind: 'game-jam', relDir: LOW_TIDE },
      { slug: 'buoy', version: 'v1.0.0', kind: 'test-case', relDir: BUOY },
      { slug: 'gull', version: 'v1.0.0', kind: 'test-case', relDir: GULL },
      { slug: 'beacon', version: 'v1.0.0', kind: 'test-case', relDir: BEACON_V1 },
      { slug: 'beacon', version: 'v1.1.0', kind: 'test-case', relDir: BEACON_V1_1 },
      { slug: 'crabber', version: 'v2.0.0', kind: 'test-case', relDir: CRABBER },
      { slug: 'skiff-race', version: 'v1.1.0', kind: 'test-case', relDir: REGATTA },
      { slug: 'tugline', version: 'v1.0.0', kind: 'test-case', relDir: TUGLINE },
    ]);
    expect(scan.groupFiles).toEqual(['test-case-groups/harbor-lights/test-case-group.toml']);
  });

  it('reads every version without error, keyed by its manifest slug and folder version', () => {
    expect([...reads.values()].map(({ record }) => `${record.slug}@${record.version}:${record.testType}`)).toEqual([
      'foghorn@v1.0.0:game-jam', 'low-tide@v1.0.0:game-jam', 'buoy@v1.0.0:asset-generation', 'gull@v1.0.0:asset-generation',
      'beacon@v1.0.0:end-to-end', 'beacon@v1.1.0:end-to-end', 'crabber@v2.0.0:end-to-end', 'skiff-race@v1.1.0:end-to-end',
      'tugline@v1.0.0:end-to-end',
    ]);
    for (const { record, warnings } of reads.values()) {
      expect(record.summary).not.toBe('');
      expect(record.description).not.toBe('');
      expect(record.changelog).not.toBe('');
      // Asset cases build nothing; every key of every example is one the format defines.
      expect(record.build).toEqual(record.testType === 'asset-generation' ? null : { install: 'npm ci', build: 'npm run build' });
      expect(warnings, `${record.slug} ${record.version}`).toEqual([]);
    }
  });

  it('renders every prompt and every spec for every variant and every engine, with nothing left unfilled', async () => {
    let rendered = 0;
    for (const [relDir, { record }] of reads) {
      for (const engine of record.engines) {
        for (const variant of record.variants) {
          const prompt = renderVariantPrompt(record, variant.slug, engine.slug);
          expect(prompt).not.toMatch(/\{\{|\}\}/);
          expect(prompt).toContain('`/work');
          for (const spec of await renderVariantSpecs(record, join(ROOT, relDir), variant.slug, engine.slug)) {
            expect(spec.body, `${relDir} ${spec.dest} (${variant.slug}, ${engine.slug})`).not.toMatch(/\{\{|\}\}/);
          }
          rendered += 1;
        }
      }
    }
    // beacon 2 + 3 variants, tugline and crabber 3 engines each, regatta 3 variants, two jams 1 each,
    // buoy and gull 2 variants each.
    expect(rendered).toBe(2 + 3 + 3 + 3 + 3 + 1 + 1 + 2 + 2);
  });

  it('groups its three cases under one ranked group, all of which the checkout holds', async () => {
    const { groups, problems } = await readGroups(ROOT);
    expect(problems).toEqual([]);
    expect(groups).toEqual([{
      slug: 'harbor-lights',
      name: 'Harbor Lights',
      summary: expect.any(String),
      cases: ['beacon', 'tugline', 'low-tide'],
    }]);
    const slugs = new Set(scan.versions.map((found) => found.slug));
    expect(groups[0]!.cases.every((slug) => slugs.has(slug))).toBe(true);
  });
});

describe('beacon, the legacy-checklist case', () => {
  it('has two versions, listed oldest first, each with its own changelog', () => {
    const entry = buildCatalogEntry([read(BEACON_V1_1).record, read(BEACON_V1).record], { includeExperimental: false });
    expect(entry).toMatchObject({ slug: 'beacon', versions: ['v1.0.0', 'v1.1.0'], name: 'Beacon', difficulty: 'easy', showcase: null });
    expect(read(BEACON_V1).record.changelog.trim()).toBe('Introduced.');
    expect(read(BEACON_V1_1).record.changelog).toContain('Fog Bank');
    expect(read(BEACON_V1_1).record.maxRuntimeSeconds).toBe(4500);
  });

  it('adds the fog variant in v1.1.0 and records v1.0.0\'s docking ambiguity as an erratum resolved there', () => {
    expect(read(BEACON_V1).record.variants.map((variant) => variant.slug)).toEqual(['base', 'squall']);
    expect(read(BEACON_V1_1).record.variants.map((variant) => [variant.slug, variant.name])).toEqual([
      ['base', 'Clear Night'], ['squall', 'Squall'], ['fog', 'Fog Bank'],
    ]);
    expect(read(BEACON_V1).record.errata).toEqual([expect.objectContaining({
      id: 'docking-rule', severity: 'minor', affectsScoring: true, resolvedIn: 'v1.1.0', variant: null,
    })]);
    expect(read(BEACON_V1_1).record.errata).toEqual([]);
  });

  it('seeds a templated overview and a per-variant weather spec to one stable path', () => {
    const { record } = read(BEACON_V1_1);
    expect(record.commonSpecs[0]).toEqual({ source: 'specs/overview.md.hbs', dest: 'specs/overview.md', template: true, kind: 'spec' });
    expect(record.variants.map((variant) => variant.specs)).toEqual(['clear', 'squall', 'fog'].map((weather) => [
      { source: `specs/weather-${weather}.md`, dest: 'specs/weather.md', template: false, kind: 'spec' },
    ]));
    expect(record.workspaces).toEqual([{ engine: null, source: 'workspaces/base' }]);
    expect(record.engines).toEqual([{ slug: 'none' }]);
  });

  it('names each variant in its prompt and its rendered overview', async () => {
    const { record } = read(BEACON_V1_1);
    for (const variant of record.variants) {
      expect(variant.prompt).toContain(`the **${variant.name}** variant`);
      const [overview] = await renderVariantSpecs(record, join(ROOT, BEACON_V1_1), variant.slug);
      expect(overview!.body).toContain(`Specification v1.1.0, as seeded for the **${variant.name}** variant`);
    }
    expect(record.variants[2]!.prompt).toContain('gameplay under the fog bank');
    expect(record.variants[0]!.prompt).not.toContain('fog bank');
  });

  it('lists its HTML mockups to render, common and per variant, at the declared 1280x720 viewport', () => {
    const viewport = { width: 1280, height: 720 };
    expect(read(BEACON_V1_1).referencesToRender).toEqual([
      { view: 'title', scope: '_common', htmlPath: 'reference/title.html', outFile: 'title.png', viewport },
      { view: 'gameplay', scope: '_common', htmlPath: 'reference/gameplay.html', outFile: 'gameplay.png', viewport },
      { view: 'game-over', scope: '_common', htmlPath: 'reference/game-over.html', outFile: 'game-over.png', viewport },
      { view: 'fog-gameplay', scope: 'fog', htmlPath: 'reference/fog-gameplay.html', outFile: 'fog-gameplay.png', viewport },
    ]);
    expect(read(BEACON_V1).referencesToRender.map((reference) => reference.view)).toEqual(['title', 'gameplay']);
    const { record } = read(BEACON_V1_1);
    expect(record.commonReferences.map((reference) => reference.mediaUrl)).toEqual([
      '/test-cases/beacon/versions/v1.1.0/references/_common/title.png',
      '/test-cases/beacon/versions/v1.1.0/references/_common/gameplay.png',
      '/test-cases/beacon/versions/v1.1.0/references/_common/game-over.png',
    ]);
    expect(record.variants[2]!.references).toEqual([
      { view: 'fog-gameplay', kind: 'rendered', mediaUrl: '/test-cases/beacon/versions/v1.1.0/references/fog/fog-gameplay.png' },
    ]);
    expect(read(BEACON_V1_1).staticReferences).toEqual([]);
  });

  it('keeps every mockup self-contained: only local files from its own folder, all of which exist', async () => {
    for (const relDir of [BEACON_V1, BEACON_V1_1]) {
      for (const reference of read(relDir).referencesToRender) {
        const htmlPath = join(ROOT, relDir, reference.htmlPath);
        const html = await readFile(htmlPath, 'utf8');
        expect(html, reference.htmlPath).not.toMatch(/https?:|\/\/[a-z]|@import|url\(\s*["']?(?!#)[a-z]+:/i);
        const linked = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]!);
        expect(linked).toEqual(expect.arrayContaining(['theme.css']));
        for (const file of linked) expect(existsSync(join(dirname(htmlPath), file)), `${relDir}/${reference.htmlPath} -> ${file}`).toBe(true);
      }
      const css = await readFile(join(ROOT, relDir, 'reference/theme.css'), 'utf8');
      expect(css).not.toMatch(/https?:|@import|@font-face/);
    }
  });

  it('declares checks that use all four action types and name declared reference views', () => {
    const { record } = read(BEACON_V1_1);
    expect(record.checks.map((check) => [check.view, check.referenceView])).toEqual([
      ['title', 'title'], ['gameplay', 'gameplay'], ['gameplay-clicked', 'gameplay'],
    ]);
    expect(new Set(record.checks.flatMap((check) => check.actions.map((action) => action.type)))).toEqual(new Set(['wait', 'key', 'hold', 'click']));
    expect(record.checks[1]!.actions).toContainEqual({ type: 'hold', key: 'ArrowRight', ms: 300 });
    expect(record.checks[2]!.actions[0]).toEqual({ type: 'click', x: 890, y: 374 });
  });

  it('grades a legacy checklist with sub items, domains, references and proofs', () => {
    const { record } = read(BEACON_V1_1);
    expect(record.engineFormat).toBe(false);
    expect(record.domains.map((domain) => domain.id)).toEqual(['steering', 'night']);
    const steers = record.commonReviewItems.find((item) => item.id === 'beam-steers')!;
    expect(steers).toMatchObject({ domain: 'steering', reference: 'gameplay', proof: 'night', weight: 2 });
    expect(verdictIdsOf(steers)).toEqual(['beam-steers.turns', 'beam-steers.holds']);
    expect(steers.subItems.map((sub) => sub.weight)).toEqual([1, 1]);
    expect(record.commonReviewItems.every((item) => !('failureCap' in item) && !('domains' in item))).toBe(true);
    expect(record.commonReviewItems.find((item) => item.id === 'night-lost')).toMatchObject({ reference: 'game-over', proof: 'night-over' });
    expect(record.variants.map((variant) => variant.reviewItems.flatMap(verdictIdsOf))).toEqual([
      ['clear-rocks-visible'],
      ['squall-gusts.push', 'squall-gusts.warning'],
      ['fog-hidden-rocks.beam-reveals', 'fog-hidden-rocks.lantern-reveals', 'fog-hidden-rocks.still-solid'],
    ]);
    expect(record.commonProofs.map((proof) => [proof.id, proof.kind])).toEqual([
      ['title', 'image'], ['gameplay', 'image'], ['night-over', 'image'], ['night', 'video'],
    ]);
  });
});

describe('tugline, the engine-format case', () => {
  it('is served as engine format, every item carrying domains and a failure cap', () => {
    const { record } = read(TUGLINE);
    expect(record.engineFormat).toBe(true);
    expect(record.domains.map((domain) => domain.id)).toEqual(['helm', 'harbor', 'run']);
    expect(record.commonReviewItems.map((item) => item.id)).toEqual([
      'surface.present', 'helm.thrust', 'helm.rudder-needs-way', 'harbor.current', 'harbor.push', 'harbor.mooring',
      'run.shift-ends', 'run.arrivals',
    ]);
    for (const item of record.commonReviewItems) {
      expect(item.domains!.length, item.id).toBeGreaterThan(0);
      expect(FUNCTIONAL_TIERS, item.id).toContain(item.failureCap);
      expect(item.category?.id).toBe(item.id.split('.')[0]);
    }
    expect(record.commonReviewItems[0]).toMatchObject({
      domains: ['helm', 'harbor', 'run'],
      failureCap: 'broken',
      validation: { script: 'surface/surface-present.test.ts', outputs: [{ id: 'posed', kind: 'image' }] },
    });
    expect(record.commonReviewItems.find((item) => item.id === 'harbor.push')!.validation!.outputs).toEqual([
      { id: 'shove', name: 'The barge after a full-throttle shove', kind: 'image' },
    ]);
  });

  it('supports none plus two pinned engines, each with its own starter project', () => {
    const { record } = read(TUGLINE);
    expect(record.engines).toEqual([
      { slug: 'none' },
      { slug: 'simple-2d', minVersion: '1.2.0' },
      { slug: 'decoupled-2d', minVersion: '0.4.0', maxVersion: '0.9.9' },
    ]);
    expect(record.workspaces).toEqual([
      { engine: 'none', source: 'workspaces/none' },
      { engine: 'simple-2d', source: 'workspaces/simple-2d' },
      { engine: 'decoupled-2d', source: 'workspaces/decoupled-2d' },
    ]);
    expect(record['toolchain']).toEqual({ typecheck: 'npx tsc --noEmit', test: 'npx vitest run' });
    expect(record['instrumentation']).toEqual({ handle: '__tugline' });
  });

  it('renders its specs differently for each engine', async () => {
    const { record } = read(TUGLINE);
    const overviews = await Promise.all(record.engines.map(async (engine) => {
      const specs = await renderVariantSpecs(record, join(ROOT, TUGLINE), 'base', engine.slug);
      expect(specs.map((spec) => spec.dest)).toEqual([
        'specs/overview.md', 'specs/helm.md', 'specs/harbor.md', 'specs/shift.md', 'specs/debug-surface.md',
      ]);
      return specs[0]!.body;
    }));
    expect(overviews[0]).toContain('This run builds on\n**no engine**');
    expect(overviews[1]).toContain('the **Simple 2D** engine');
    expect(overviews[2]).toContain('the **Decoupled 2D** engine');
    expect(overviews[2]).toContain('vendored at `/work/engine`');
    expect(renderVariantPrompt(record, 'base', 'simple-2d')).toContain('on the **Simple 2D** engine');
  });

  it('lists its validation files recursively', async () => {
    expect(await listValidationFiles(join(ROOT, TUGLINE))).toEqual([
      'validation/harbor/mooring.test.ts',
      'validation/harbor/push.test.ts',
      'validation/helm/thrust.test.ts',
      'validation/run/shift-ends.test.ts',
      'validation/support/harness.ts',
      'validation/support/serve-build.ts',
      'validation/surface/surface-present.test.ts',
    ]);
  });

  it('has a showcase, which the catalog entry previews', () => {
    const result = read(TUGLINE);
    const media = [
      { file: 'harbor.svg', name: expect.stringContaining('barge 3'), kind: 'image' },
      { file: 'badge.png', name: 'The Tugline badge', kind: 'image' },
    ];
    expect(result.record.variants[0]!.showcase).toEqual({ description: expect.stringContaining('four berths'), media });
    expect(result.showcaseDirs).toEqual({ base: 'showcase/base' });
    expect(buildCatalogEntry([result.record], { includeExperimental: false })!.showcase).toEqual({ version: 'v1.0.0', variant: 'base', media });
  });
});

describe('regatta, crabber and foghorn', () => {
  it('regatta keys its store by its manifest slug, not its folder, and seeds two files per variant', () => {
    const { record } = read(REGATTA);
    expect(record).toMatchObject({ slug: 'skiff-race', name: 'Regatta', maxRuntimeSeconds: 5400, engineFormat: false });
    expect(record.domains.map((domain) => domain.id)).toEqual(['solo', 'duel']);
    expect(record.variants.map((variant) => variant.specs.map((spec) => spec.dest))).toEqual([
      ['specs/wind.md', 'specs/course.md'], ['specs/wind.md', 'specs/course.md'], ['specs/wind.md', 'specs/course.md'],
    ]);
    expect(read(REGATTA).referencesToRender.map((reference) => `${reference.scope}/${reference.outFile}`)).toEqual([
      '_common/gameplay.png', '_common/finish.png', 'base/title.png', 'fleet/title.png', 'gusts/title.png',
    ]);
  });

  it('crabber is engine format with a mockup, seeded sprites and a validation folder per engine', async () => {
    const { record } = read(CRABBER);
    expect(record.engineFormat).toBe(true);
    expect(record.commonReviewItems.every((item) => item.failureCap && item.domains!.length > 0)).toBe(true);
    expect(record.commonReferences).toEqual([
      { view: 'title', kind: 'rendered', mediaUrl: '/test-cases/crabber/versions/v2.0.0/references/_common/title.png' },
    ]);
    expect(record.assets.map((asset) => asset.source)).toEqual(['assets/boat', 'assets/crab']);
    const files = await listValidationFiles(join(ROOT, CRABBER));
    for (const engine of record.engines) {
      const scripts = record.commonReviewItems.flatMap((item) => (item.validation ? [`validation/${engine.slug}/${item.validation.script}`] : []));
      expect(files, engine.slug).toEqual(expect.arrayContaining(scripts));
    }
  });

  it('foghorn grades the categories it declares, with their weights', () => {
    const { record } = read(FOGHORN);
    expect(record.maxRuntimeSeconds).toBe(3 * 3600);
    expect(record.commonReviewItems.map((item) => `${item.id}:${item.weight}:${item.graded}`)).toEqual([
      'heard:3:true', 'fun:2:true', 'theme:2:true', 'playable:1:true', 'polish:1:true',
    ]);
    expect(record.variants[0]!.prompt).toContain('**3 hours**');
  });
});

describe('low-tide, the game jam', () => {
  it('runs one implicit variant and states its time budget in the prompt', () => {
    const { record } = read(LOW_TIDE);
    expect(record.difficulty).toBe('');
    expect(record.maxRuntimeSeconds).toBe(4 * 3600);
    expect(record.variants.map((variant) => variant.slug)).toEqual(['base']);
    expect(record.variants[0]!.prompt).toContain('The session is stopped **4 hours** after it starts');
    expect(record.commonSpecs).toEqual([]);
    // It declares no checklist, so it is reviewed on the generic graded jam categories.
    expect(record.commonReviewItems.map((item) => item.id)).toEqual(['playability', 'fun', 'theme', 'presentation', 'audio', 'polish', 'creativity']);
    expect(record.commonReviewItems.every((item) => item.graded === true)).toBe(true);
  });
});

// Rendering goes through the real pool, whose worker threads load the compiled worker from
// dist/ (`npm test` builds it first) and drive the system Chromium.
const renderWorker = resolve(__dirname, '../../dist/src/workers/render-mockup.js');
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((path) => existsSync(path));

/** Renders every mockup of the given versions with the real pool, at each one's declared viewport. */
async function renderMockups(relDirs: string[]) {
  const out = await tempDir('example-renders-');
  const tasks = relDirs.flatMap((relDir) => read(relDir).referencesToRender.map((reference) => ({
    htmlPath: join(ROOT, relDir, reference.htmlPath),
    rootDir: join(ROOT, relDir),
    outPath: join(out, relDir.replaceAll('/', '_'), reference.scope, reference.outFile),
    // Without a [viewport] table the renderer's default, the same as the pool's.
    viewport: reference.viewport ?? { width: 1280, height: 720 },
  })));
  const pool = createRenderPool({ chromiumPath: chromium! });
  try {
    return await Promise.all((await pool.renderAll(tasks)).map(async (result) => ({ ...result, channels: (await sharp(result.outPath).stats()).channels.slice(0, 3) })));
  } finally {
    await pool.close();
  }
}

const spreadOf = (channels: Array<{ stdev: number }>) => channels.reduce((sum, channel) => sum + channel.stdev, 0) / channels.length;

describe.skipIf(!existsSync(renderWorker) || !chromium)('the example mockups, rendered', () => {
  it('render to full-size night scenes, their stylesheet and sprite loaded from the version folder', async () => {
    for (const result of await renderMockups([BEACON_V1, BEACON_V1_1])) {
      expect(result).toMatchObject({ width: 1280, height: 720 });
      // Every scene is set at night (mean level 23 to 88 of 255). Unstyled HTML, from a
      // stylesheet the request guard refused or a broken link, renders black text on
      // white (about 254), which this tells apart at once.
      const mean = result.channels.reduce((sum, channel) => sum + channel.mean, 0) / 3;
      expect(mean, result.outPath).toBeLessThan(140);
      expect(spreadOf(result.channels), result.outPath).toBeGreaterThan(8);
    }
  }, 90_000);

  it('render regatta and crabber at their stage sizes, styled from their own folders', async () => {
    const results = await renderMockups([REGATTA, CRABBER]);
    expect(results.map((result) => [result.width, result.height])).toEqual([...Array(5).fill([1280, 720]), [1200, 640]]);
    for (const result of results) {
      // Harbor water is a mid blue; an unstyled page is near-white and flat.
      expect(result.channels[2]!.mean - result.channels[0]!.mean, result.outPath).toBeGreaterThan(20);
      expect(spreadOf(result.channels), result.outPath).toBeGreaterThan(8);
    }
  }, 90_000);
});

describe('buoy and gull, the asset cases', () => {
  it('serve their per-kind tables, each variant\'s own overriding the case\'s key by key', () => {
    const buoy = read(BUOY).record;
    expect(buoy).toMatchObject({
      assetKind: 'voxel-model',
      voxel: { width: 16, height: 24, depth: 16, background: 'transparent' },
      tool: { binary: 'voxel', preview: 'preview.png' },
      output: { actions: 'actions.json' },
    });
    expect(buoy.variants.map((variant) => variant['voxel'] ?? null)).toEqual([null, { width: 16, height: 32, depth: 16, background: 'transparent' }]);
    const gull = read(GULL).record;
    expect(gull).toMatchObject({ assetKind: 'sprite', canvas: { width: 32, height: 32, background: 'transparent' }, tool: { binary: 'draw' } });
    expect(gull.variants[1]!['canvas']).toEqual({ width: 64, height: 64, background: 'transparent' });
  });

  it('render the tables and the voxel extents into prompts and specs, per variant', async () => {
    const buoy = read(BUOY).record;
    expect(renderVariantPrompt(buoy, 'base')).toContain('16 voxels wide (x), 24 high (y, up) and\n16 deep (z), on a transparent background');
    expect(renderVariantPrompt(buoy, 'tall')).toContain('16 voxels wide (x), 32 high (y, up)');
    const [brief] = await renderVariantSpecs(buoy, join(ROOT, BUOY), 'tall');
    expect(brief!.body).toContain('x runs from 0 to 15, y (up) from 0 to 31, z from 0 to 15.');
    expect(brief!.body).toContain('A lamp at the very top (y = 31)');
    const gull = read(GULL).record;
    expect(renderVariantPrompt(gull, 'large')).toContain('one 64x64 sprite on a\ntransparent canvas, using only the `draw` binary');
  });
});
