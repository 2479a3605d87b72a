import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/errors.js';
import { DefinitionStore, readStoredVersion } from '../../src/catalog/definition-store.js';
import { readVersion } from '../../src/catalog/read-version.js';
import { storedReferencePath, storedShowcasePath } from '../../src/catalog/stored-media-path.js';
import { contentHash, statFingerprint } from '../../src/catalog/version-hash.js';
import { minimalCase, tempDir, writeVersion } from './catalog-test-helpers.js';

async function storedMini() {
  const root = await tempDir();
  const dir = await writeVersion(root, 'test-cases/mini/v1.0.0', minimalCase('mini', {
    manifest: '[[reference]]\nview = "title"\npath = "reference/title.html"\n[[reference]]\nview = "clip"\nmedia = "reference/clip.webm"',
    files: {
      'reference/title.html': '<html></html>',
      'reference/clip.webm': 'webm-bytes',
      'showcase/base/showcase.toml': '[[media]]\nfile = "still.png"\nname = "A still"',
      'showcase/base/still.png': 'png-bytes',
      'showcase/base/unlisted.png': 'hidden',
    },
  }));
  const store = new DefinitionStore(await tempDir('store-'));
  const staged = await store.stage({
    read: await readVersion(root, dir), sourceDir: dir, checkoutRoot: root,
    contentHash: await contentHash(dir, root), fingerprint: await statFingerprint(dir, root),
  });
  for (const target of staged.renderTargets) await writeFile(target.outFile, 'rendered');
  const versionDir = await staged.commit();
  return { versionDir, stored: await readStoredVersion(versionDir) };
}

const status = (promise: Promise<unknown>) => promise.then(() => 200, (error: unknown) => (error instanceof HttpError ? error.statusCode : -1));

describe('stored media paths', () => {
  it('serves rendered and copied references of their scope only', async () => {
    const { versionDir, stored } = await storedMini();
    expect(await readFile(await storedReferencePath(versionDir, stored, '_common', 'title.png'), 'utf8')).toBe('rendered');
    expect(await readFile(await storedReferencePath(versionDir, stored, '_common', 'clip.webm'), 'utf8')).toBe('webm-bytes');
    expect(await status(storedReferencePath(versionDir, stored, 'base', 'title.png'))).toBe(404);
    expect(await status(storedReferencePath(versionDir, stored, '_common', '../resolved.json'))).toBe(404);
  });

  it('serves only the files the showcase lists, never showcase.toml', async () => {
    const { versionDir, stored } = await storedMini();
    expect(await readFile(await storedShowcasePath(versionDir, stored, 'base', 'still.png'), 'utf8')).toBe('png-bytes');
    expect(await status(storedShowcasePath(versionDir, stored, 'base', 'unlisted.png'))).toBe(404);
    expect(await status(storedShowcasePath(versionDir, stored, 'base', 'showcase.toml'))).toBe(404);
    expect(await status(storedShowcasePath(versionDir, stored, 'other', 'still.png'))).toBe(404);
  });
});
