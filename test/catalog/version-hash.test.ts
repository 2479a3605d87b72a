import { appendFile, readFile, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogFileError } from '../../src/catalog/catalog-file-error.js';
import { contentHash, statFingerprint } from '../../src/catalog/version-hash.js';
import { copyOfCatalog, EXAMPLE_CATALOG, REGATTA, tempDir, writeFiles } from './catalog-test-helpers.js';

describe('contentHash', () => {
  it('is stable for an unchanged folder and follows a one-byte change', async () => {
    const root = await copyOfCatalog([REGATTA]);
    const dir = join(root, REGATTA);
    const before = await contentHash(dir, root);
    expect(await contentHash(dir, root)).toBe(before);
    expect(before).toBe(await contentHash(join(EXAMPLE_CATALOG, REGATTA), EXAMPLE_CATALOG));
    const spec = join(dir, 'specs/race.md');
    const text = await readFile(spec, 'utf8');
    await writeFile(spec, text.replace(/.$/s, (last) => (last === 'x' ? 'y' : 'x')));
    expect(await contentHash(dir, root)).not.toBe(before);
  });

  it('changes when a file is renamed, even with the same bytes', async () => {
    const root = await copyOfCatalog([REGATTA]);
    const dir = join(root, REGATTA);
    const before = await contentHash(dir, root);
    await rename(join(dir, 'specs/race.md'), join(dir, 'specs/race2.md'));
    expect(await contentHash(dir, root)).not.toBe(before);
  });

  it('refuses a symlink that leaves the checkout', async () => {
    const root = await copyOfCatalog([REGATTA]);
    await symlink('/etc/hostname', join(root, REGATTA, 'specs/leak.md'));
    const error = await contentHash(join(root, REGATTA), root).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogFileError);
    expect((error as Error).message).toBe(`${REGATTA}/specs/leak.md: is a symlink that leaves the checkout (or is broken)`);
  });

  it('follows a symlink to a file inside the checkout like a copy of it', async () => {
    const root = await tempDir();
    const plain = await tempDir();
    await writeFiles(plain, { 'v/a.md': 'same' });
    await writeFiles(root, { 'shared.md': 'same', 'v/.keep': '' });
    await rm(join(root, 'v/.keep'));
    await symlink(join(root, 'shared.md'), join(root, 'v/a.md'));
    // Same key and bytes as the plain folder, so the same hash: the store copy is identical.
    expect(await contentHash(join(root, 'v'), root)).toBe(await contentHash(join(plain, 'v'), plain));
  });
});

describe('statFingerprint', () => {
  it('moves with size or mtime, not with a read', async () => {
    const root = await copyOfCatalog([REGATTA]);
    const dir = join(root, REGATTA);
    const before = await statFingerprint(dir, root);
    await readFile(join(dir, 'specs/race.md'));
    expect(await statFingerprint(dir, root)).toBe(before);
    await utimes(join(dir, 'specs/race.md'), new Date(), new Date(Date.now() + 5000));
    const touched = await statFingerprint(dir, root);
    expect(touched).not.toBe(before);
    await appendFile(join(dir, 'specs/race.md'), '\n');
    expect(await statFingerprint(dir, root)).not.toBe(touched);
  });
});
