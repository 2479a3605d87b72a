import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG, BEACON, TUGLINE } from '../helpers/example-catalog.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

// What the resolution routes serve of the project's own example catalog, as ingested.
let backend: TestBackend;

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG });
  const scan = await backend.app.inject({ method: 'POST', url: '/ingest' });
  expect(scan.json()).toMatchObject({ failed: 0 });
});
afterAll(() => backend.close());

const get = (url: string) => backend.app.inject(url);
const versionFiles = (relDir: string) =>
  readdirSync(join(EXAMPLE_CATALOG, relDir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(join(EXAMPLE_CATALOG, relDir).length + 1))
    .sort();

describe('the artifact route', () => {
  it('serves exactly what a resolved version points at, and 404s the rest of the folder', async () => {
    const served: string[] = [];
    for (const key of versionFiles(TUGLINE)) {
      const response = await get(`/test-cases/tugline/versions/v1.0.0/artifacts/${key}`);
      if (response.statusCode === 200) served.push(key);
      else expect(response.statusCode, key).toBe(404);
    }
    expect(served).toEqual([
      'prompt.hbs',
      // The showcase's media, not its showcase.toml or the showcase.md inlined as its description.
      'showcase/base/badge.png',
      'showcase/base/harbor.svg',
      'specs/debug-surface.md.hbs',
      'specs/harbor.md',
      'specs/helm.md',
      'specs/overview.md.hbs',
      'specs/shift.md',
      'validation/harbor/mooring.test.ts',
      'validation/harbor/push.test.ts',
      'validation/helm/thrust.test.ts',
      'validation/run/shift-ends.test.ts',
      'validation/support/harness.ts',
      'validation/support/serve-build.ts',
      'validation/surface/surface-present.test.ts',
      'workspaces/decoupled-2d/package.json',
      'workspaces/none/package.json',
      'workspaces/simple-2d/package.json',
    ]);
    // Mockup sources are rendered at ingest and served as references, never as files.
    const beacon = versionFiles(BEACON).filter((key) => key.startsWith('reference/'));
    expect(beacon.length).toBeGreaterThan(0);
    for (const key of beacon) expect((await get(`/test-cases/beacon/versions/v1.1.0/artifacts/${key}`)).statusCode, key).toBe(404);
  });

  it('serves catalog SVG and HTML with the sandboxing policy run media get', async () => {
    const svg = await get('/test-cases/tugline/versions/v1.0.0/artifacts/showcase/base/harbor.svg');
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.headers['x-content-type-options']).toBe('nosniff');
    expect(svg.headers['content-security-policy']).toBe("default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox");
    const showcase = await get('/test-cases/tugline/versions/v1.0.0/showcase/base/harbor.svg');
    expect(showcase.headers['content-security-policy']).toMatch(/; sandbox$/);
  });
});

describe('resolved versions and spec sets, as the console reads them', () => {
  it('keys each version\'s and variant\'s starter files by engine, {} when none', async () => {
    const tugline = (await get('/test-cases/tugline/versions/v1.0.0')).json();
    expect(tugline.workspace).toEqual({
      none: [{ source: 'workspaces/none/package.json', dest: 'package.json' }],
      'simple-2d': [{ source: 'workspaces/simple-2d/package.json', dest: 'package.json' }],
      'decoupled-2d': [{ source: 'workspaces/decoupled-2d/package.json', dest: 'package.json' }],
    });
    expect(tugline.variants.map((variant: { workspace: object }) => variant.workspace)).toEqual([{}]);
    // One engine-less `workspace = "…"` folder is keyed `none`.
    const beacon = (await get('/test-cases/beacon/versions/v1.1.0')).json();
    expect(beacon.workspace).toEqual({ none: [{ source: 'workspaces/base/package.json', dest: 'package.json' }] });
    expect((await get('/test-cases/buoy/versions/v1.0.0')).json().workspace).toEqual({});
  });

  it('wraps a variant\'s spec set with what names it', async () => {
    const answer = (await get('/test-cases/beacon/versions/v1.1.0/specs/squall')).json();
    expect(answer).toMatchObject({
      slug: 'beacon', version: 'v1.1.0', variant: 'squall',
      description: 'Gusts from the west or the east shove boats off their course; the HUD warns a second ahead.',
    });
    expect(answer.specs.map(({ source, dest, template, kind }: Record<string, unknown>) => ({ source, dest, template, kind })).at(-1)).toEqual(
      { source: 'specs/weather-squall.md', dest: 'specs/weather.md', template: false, kind: 'spec' },
    );
    expect(answer.specs[0].body).not.toMatch(/\{\{/);
  });

  it('answers the asset kind a manifest names, sprite for an asset case naming none, null for other types', async () => {
    expect((await get('/test-cases/buoy/versions/v1.0.0')).json().assetKind).toBe('voxel-model');
    expect((await get('/test-cases/gull/versions/v1.0.0')).json().assetKind).toBe('sprite');
    expect((await get('/test-cases/tugline/versions/v1.0.0')).json().assetKind).toBeNull();
    expect((await get('/test-cases/low-tide/versions/v1.0.0')).json().assetKind).toBeNull();
    const catalog: Array<{ slug: string; testType: string; assetKind: string | null }> = (await get('/test-cases')).json().testCases;
    // Named cases checked by name; the examples hold more, and every one that is no asset case has none.
    expect(Object.fromEntries(catalog.map((entry) => [entry.slug, entry.assetKind]))).toMatchObject({
      beacon: null, buoy: 'voxel-model', gull: 'sprite', 'low-tide': null, tugline: null,
    });
    expect(catalog.filter((entry) => entry.testType !== 'asset-generation').every((entry) => entry.assetKind === null)).toBe(true);
  });

  it('serves a voxel case\'s tables, the variant\'s merged over the version\'s, and prompts rendered with them', async () => {
    const buoy = (await get('/test-cases/buoy/versions/v1.0.0')).json();
    expect(buoy.voxel).toEqual({ width: 16, height: 24, depth: 16, background: 'transparent' });
    expect(buoy.tool).toEqual({ binary: 'voxel', preview: 'preview.png' });
    expect(buoy.output).toEqual({ actions: 'actions.json' });
    expect(buoy.variants[1].voxel).toEqual({ width: 16, height: 32, depth: 16, background: 'transparent' });
    expect(buoy.variants[1].prompt).toContain('16 voxels wide (x), 32 high (y, up)');
    const specs = (await get('/test-cases/buoy/versions/v1.0.0/specs/base')).json().specs;
    expect(specs[0].body).toContain('x runs from 0 to 15, y (up) from 0 to 23, z from 0 to 15.');
  });
});
