import { describe, expect, it } from 'vitest';
import { scanCheckout } from '../../src/catalog/scan-checkout.js';
import { selectVersions } from '../../src/catalog/select-versions.js';
import { copyOfCatalog, CRABBER, FOGHORN, minimalCase, REGATTA, tempDir, writeVersion } from './catalog-test-helpers.js';

describe('scanCheckout', () => {
  it('finds versions with manifest slugs and folder names, jams first, and group files', async () => {
    const root = await copyOfCatalog([REGATTA, CRABBER, FOGHORN, 'test-case-groups/harbor-lights']);
    const { versions, problems, groupFiles } = await scanCheckout(root);
    expect(problems).toEqual([]);
    expect(groupFiles).toEqual(['test-case-groups/harbor-lights/test-case-group.toml']);
    expect(versions.map(({ kind, slug, version, folderName, relDir }) => ({ kind, slug, version, folderName, relDir }))).toEqual([
      { kind: 'game-jam', slug: 'foghorn', version: 'v1.0.0', folderName: 'foghorn', relDir: FOGHORN },
      { kind: 'test-case', slug: 'crabber', version: 'v2.0.0', folderName: 'crabber', relDir: CRABBER },
      { kind: 'test-case', slug: 'skiff-race', version: 'v1.1.0', folderName: 'regatta', relDir: REGATTA },
    ]);
  });

  it('finds both layouts and several versions of one case, and ignores non-version folders', async () => {
    const root = await tempDir();
    await writeVersion(root, 'test-cases/mini/v1.0.0', minimalCase('mini'));
    await writeVersion(root, 'test-cases/mini/v1.10.0', minimalCase('mini'));
    await writeVersion(root, 'test-cases/end-to-end/hard/maxi/v2.0', minimalCase('maxi'));
    await writeVersion(root, 'test-cases/mini/drafts/notes', { 'test-case.toml': 'slug = "draft"' });
    const { versions } = await scanCheckout(root);
    expect(versions.map((found) => `${found.slug}@${found.version}:${found.folderName}`)).toEqual([
      'maxi@v2.0:maxi', 'mini@v1.0.0:mini', 'mini@v1.10.0:mini',
    ]);
  });

  it('reads a slug the quick read cannot, and reports a manifest without one', async () => {
    const root = await tempDir();
    await writeVersion(root, 'test-cases/odd/v1.0.0', { 'test-case.toml': '"slug" = "odd"\nname = "Odd"' });
    await writeVersion(root, 'test-cases/broken/v1.0.0', { 'test-case.toml': 'name = "No slug"' });
    const { versions, problems } = await scanCheckout(root);
    expect(versions.map((found) => found.slug)).toEqual(['odd']);
    expect(problems.map((problem) => problem.message)).toEqual(['test-cases/broken/v1.0.0/test-case.toml: "slug" is required and must be a non-empty string']);
  });

  it('refuses two folders that declare the same slug and version', async () => {
    const root = await tempDir();
    await writeVersion(root, 'test-cases/a/v1.0.0', minimalCase('same'));
    await writeVersion(root, 'test-cases/b/v1.0.0', minimalCase('same'));
    const { versions, problems } = await scanCheckout(root);
    expect(versions).toEqual([]);
    expect(problems[0]?.message).toContain('same v1.0.0, as does test-cases/b/v1.0.0/test-case.toml');
  });

  it('scans an empty checkout to nothing', async () => {
    expect(await scanCheckout(await tempDir())).toEqual({ versions: [], groupFiles: [], problems: [] });
  });
});

describe('selectVersions', () => {
  it('selects by slug or folder, all versions or one, and reports what matched nothing', async () => {
    const root = await tempDir();
    await writeVersion(root, 'test-cases/carom/v1.0.0', minimalCase('pong'));
    await writeVersion(root, 'test-cases/carom/v1.1.0', minimalCase('pong'));
    await writeVersion(root, 'test-cases/coil/v1.0.0', minimalCase('coil'));
    const { versions } = await scanCheckout(root);
    const ids = (selectors: string[]) => {
      const { selected, unknown } = selectVersions(versions, selectors);
      return { selected: selected.map((found) => `${found.slug}@${found.version}`), unknown };
    };
    expect(ids(['carom'])).toEqual({ selected: ['pong@v1.0.0', 'pong@v1.1.0'], unknown: [] });
    expect(ids(['pong@v1.1.0', 'coil'])).toEqual({ selected: ['pong@v1.1.0', 'coil@v1.0.0'], unknown: [] });
    expect(ids(['carom@v1.0.0', 'pong@v1.0.0'])).toEqual({ selected: ['pong@v1.0.0'], unknown: [] });
    expect(ids(['coil@v9.0.0', 'ghost'])).toEqual({ selected: [], unknown: ['coil@v9.0.0', 'ghost'] });
  });
});
