import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCatalogEntry } from '../../src/catalog/catalog-entry.js';
import { compareVersions } from '../../src/catalog/compare-versions.js';
import { readVersion } from '../../src/catalog/read-version.js';
import { CRABBER, EXAMPLE_CATALOG, minimalCase, REGATTA, tempDir, writeVersion } from './catalog-test-helpers.js';

// `showcase`: declared in the variant file, found by the `showcase/<variant>/` convention, or none.
async function miniVersions(specs: { version: string; name: string; experimental?: boolean; showcase?: 'declared' | 'convention' }[]) {
  const root = await tempDir();
  const records = [];
  for (const spec of specs) {
    const files = minimalCase('mini', {
      manifest: spec.experimental ? 'experimental = true' : '',
      files: {
        'variants/hard.toml': `slug = "hard"\n${spec.showcase === 'declared' ? 'showcase = "media/hard-showcase"' : ''}`,
        ...(spec.showcase ? showcaseFiles(spec.showcase === 'declared' ? 'media/hard-showcase' : 'showcase/hard') : {}),
      },
    });
    files['test-case.toml'] = files['test-case.toml']!
      .replace('name = "Mini"', `name = "${spec.name}"`)
      .replace('["variants/base.toml"]', '["variants/base.toml", "variants/hard.toml"]');
    records.push((await readVersion(root, await writeVersion(root, `test-cases/mini/${spec.version}`, files))).record);
  }
  return records;
}

function showcaseFiles(dir: string): Record<string, string> {
  return {
    [`${dir}/showcase.toml`]: '[[media]]\nfile = "clip.webm"\nname = "A clip"\n[[media]]\nfile = "run.json.gz"\nname = "A replay"',
    [`${dir}/clip.webm`]: 'x',
    [`${dir}/run.json.gz`]: 'x',
  };
}

describe('buildCatalogEntry', () => {
  it('takes display fields from the latest visible version, versions oldest first', async () => {
    const records = await miniVersions([
      { version: 'v1.10.0', name: 'Mini Ten' },
      { version: 'v1.2.0', name: 'Mini Two' },
      { version: 'v1.9.0', name: 'Mini Nine' },
    ]);
    const entry = buildCatalogEntry(records, { includeExperimental: false })!;
    expect(entry.versions).toEqual(['v1.2.0', 'v1.9.0', 'v1.10.0']);
    expect(entry).toMatchObject({ slug: 'mini', name: 'Mini Ten', testType: 'end-to-end', assetKind: null, difficulty: 'easy', summary: 'A tiny case.' });
  });

  it('hides experimental versions unless the deployment offers them', async () => {
    const records = await miniVersions([
      { version: 'v1.0.0', name: 'Stable' },
      { version: 'v2.0.0', name: 'Trial', experimental: true },
    ]);
    expect(buildCatalogEntry(records, { includeExperimental: false })).toMatchObject({ name: 'Stable', versions: ['v1.0.0'] });
    expect(buildCatalogEntry(records, { includeExperimental: true })).toMatchObject({ name: 'Trial', versions: ['v1.0.0', 'v2.0.0'] });
    expect(buildCatalogEntry(records.slice(1), { includeExperimental: false })).toBeNull();
  });

  it('shows the first variant in manifest order with a showcase, from the latest visible version', async () => {
    const records = await miniVersions([
      { version: 'v1.0.0', name: 'Old', showcase: 'declared' },
      { version: 'v1.1.0', name: 'New', showcase: 'convention' },
      { version: 'v1.2.0', name: 'Trial', experimental: true },
    ]);
    expect(buildCatalogEntry(records, { includeExperimental: false })!.showcase).toEqual({
      version: 'v1.1.0',
      variant: 'hard',
      media: [{ file: 'clip.webm', name: 'A clip', kind: 'video' }, { file: 'run.json.gz', name: 'A replay', kind: 'replay' }],
    });
    expect(buildCatalogEntry(records, { includeExperimental: true })!.showcase).toBeNull();
  });

  it('builds the examples\' entries: crabber with its showcase, regatta without', async () => {
    const crabber = (await readVersion(EXAMPLE_CATALOG, join(EXAMPLE_CATALOG, CRABBER))).record;
    const regatta = (await readVersion(EXAMPLE_CATALOG, join(EXAMPLE_CATALOG, REGATTA))).record;
    expect(buildCatalogEntry([crabber], { includeExperimental: false })!.showcase).toEqual({
      version: 'v2.0.0',
      variant: 'base',
      media: [
        { file: 'title.png', name: 'The title screen', kind: 'image' },
        { file: 'hauling.png', name: 'Hauling a full pot with a gull closing in', kind: 'image' },
      ],
    });
    expect(buildCatalogEntry([regatta], { includeExperimental: false })).toMatchObject({
      slug: 'skiff-race', name: 'Regatta', showcase: null, tags: ['arcade', '2d', 'sailing', 'versus', 'example'],
    });
  });
});

describe('compareVersions', () => {
  it('orders numerically, part by part', () => {
    expect(['v1.10.0', 'v1.2.0', 'v1.2', 'v10.0.0', 'v2.0.0', 'v1.2.0.1'].sort(compareVersions)).toEqual(['v1.2', 'v1.2.0', 'v1.2.0.1', 'v1.10.0', 'v2.0.0', 'v10.0.0']);
  });
});
