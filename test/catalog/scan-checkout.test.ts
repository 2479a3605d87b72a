import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogUnavailableError } from '../../src/catalog/catalog-unavailable-error.js';
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
    expect(problems.map(({ relDirs, slug, version, error }) => ({ relDirs, slug, version, message: error.message }))).toEqual([{
      relDirs: ['test-cases/broken/v1.0.0'], slug: 'broken', version: 'v1.0.0',
      message: 'test-cases/broken/v1.0.0/test-case.toml: "slug" is required and must be a non-empty string',
    }]);
  });

  it('refuses two folders that declare the same slug and version', async () => {
    const root = await tempDir();
    await writeVersion(root, 'test-cases/a/v1.0.0', minimalCase('same'));
    await writeVersion(root, 'test-cases/b/v1.0.0', minimalCase('same'));
    const { versions, problems } = await scanCheckout(root);
    expect(versions).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ relDirs: ['test-cases/a/v1.0.0', 'test-cases/b/v1.0.0'], slug: 'same', version: 'v1.0.0' });
    expect(problems[0]!.error.message).toBe('test-cases/a/v1.0.0/test-case.toml: declares same v1.0.0, as does test-cases/b/v1.0.0/test-case.toml; neither is ingested');
  });

  it('scans a checkout with an empty test-cases/ folder and no jams or groups to nothing', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'test-cases'));
    expect(await scanCheckout(root)).toEqual({ versions: [], groupFiles: [], problems: [] });
  });

  it('fails, rather than finding nothing, when the root or test-cases/ is missing or a folder cannot be listed', async () => {
    const root = await tempDir();
    await expect(scanCheckout(join(root, 'gone'))).rejects.toThrow(
      new CatalogUnavailableError(`The catalog root ${join(root, 'gone')} cannot be read (ENOENT: no such file or directory, stat '${join(root, 'gone')}'); nothing was changed.`),
    );
    await expect(scanCheckout(root)).rejects.toThrow(`The catalog's test-cases/ folder ${join(root, 'test-cases')} cannot be read`);
    await writeFile(join(root, 'test-cases'), 'not a folder');
    await expect(scanCheckout(root)).rejects.toThrow(`The catalog's test-cases/ folder ${join(root, 'test-cases')} is not a folder; nothing was changed.`);
    await rm(join(root, 'test-cases'));
    await writeVersion(root, 'test-cases/mini/v1.0.0', minimalCase('mini'));
    // Present but not listable (a file where a folder belongs; permissions do not bind root).
    await writeFile(join(root, 'game-jams'), '');
    await expect(scanCheckout(root)).rejects.toBeInstanceOf(CatalogUnavailableError);
    await expect(scanCheckout(root)).rejects.toThrow(`The catalog folder ${join(root, 'game-jams')} cannot be listed (ENOTDIR`);
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
