import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/errors.js';
import { contentTypeFor } from '../../src/catalog/content-type-for.js';
import { resolveInside } from '../../src/catalog/safe-store-path.js';
import { tempDir, writeFiles } from './catalog-test-helpers.js';

async function versionDir(): Promise<{ root: string; dir: string }> {
  const root = await tempDir('safe-');
  const dir = join(root, 'store/pong/v1.1.0/abc');
  await writeFiles(dir, { 'source/specs/flow.md': 'flow', 'source/a b.md': 'space' });
  await writeFiles(root, { 'store/secret.txt': 'secret', 'outside.txt': 'outside' });
  return { root, dir };
}

async function statusFor(dir: string, key: string): Promise<number | string> {
  try {
    return await resolveInside(dir, key);
  } catch (error) {
    return error instanceof HttpError ? error.statusCode : String(error);
  }
}

describe('resolveInside', () => {
  it('resolves a key to the file inside the version directory', async () => {
    const { dir } = await versionDir();
    expect(await resolveInside(dir, 'source/specs/flow.md')).toBe(join(dir, 'source/specs/flow.md'));
    expect(await resolveInside(dir, 'source/a%20b.md')).toBe(join(dir, 'source/a b.md'));
  });

  it('answers 404 for traversal in every spelling, absolute paths and NUL bytes', async () => {
    const { dir } = await versionDir();
    for (const key of [
      '../secret.txt', 'source/../../secret.txt', '%2e%2e/secret.txt', '%2E%2E%2Fsecret.txt', 'source/%2e%2e/%2e%2e/secret.txt',
      '%252e%252e/secret.txt', '..%5csecret.txt', 'source\\..\\..\\secret.txt', '/etc/passwd', '%2fetc%2fpasswd',
      'source/specs/flow.md\0.png', 'source/specs/flow.md%00', './source/specs/flow.md', 'source//specs/flow.md', '',
    ]) {
      expect(await statusFor(dir, key), key).toBe(404);
    }
  });

  it('takes a key from a stored record as written, still refusing traversal', async () => {
    const { dir } = await versionDir();
    await writeFiles(dir, { 'source/100%25.md': 'literal', 'source/100%.md': 'percent' });
    expect(await resolveInside(dir, 'source/100%25.md', { fromUrl: false })).toBe(join(dir, 'source/100%25.md'));
    // From a URL the same key means `100%.md`; a malformed escape is looked up as written.
    expect(await resolveInside(dir, 'source/100%25.md')).toBe(join(dir, 'source/100%.md'));
    expect(await resolveInside(dir, 'source/100%.md')).toBe(join(dir, 'source/100%.md'));
    await expect(resolveInside(dir, '../secret.txt', { fromUrl: false })).rejects.toBeInstanceOf(HttpError);
  });

  it('answers 404 for unknown keys, folders and malformed escapes', async () => {
    const { dir } = await versionDir();
    expect(await statusFor(dir, 'source/specs/nope.md')).toBe(404);
    expect(await statusFor(dir, 'source/specs')).toBe(404);
    expect(await statusFor(dir, 'source/%E0%A4%A')).toBe(404);
  });

  it('refuses a symlink whose real path leaves the version directory, and follows one that stays', async () => {
    const { root, dir } = await versionDir();
    await symlink(join(root, 'outside.txt'), join(dir, 'source/escape.md'));
    await mkdir(join(dir, 'source/linked'));
    await symlink(root, join(dir, 'source/linked/up'));
    await symlink(join(dir, 'source/specs/flow.md'), join(dir, 'source/alias.md'));
    expect(await statusFor(dir, 'source/escape.md')).toBe(404);
    expect(await statusFor(dir, 'source/linked/up/outside.txt')).toBe(404);
    expect(await resolveInside(dir, 'source/alias.md')).toBe(join(dir, 'source/specs/flow.md'));
  });

  it('resolves the version directory through a symlinked store root', async () => {
    const { root, dir } = await versionDir();
    await symlink(join(root, 'store'), join(root, 'store-link'));
    await writeFile(join(dir, 'resolved.json'), '{}');
    const linked = join(root, 'store-link/pong/v1.1.0/abc');
    expect(await resolveInside(linked, 'resolved.json')).toBe(join(dir, 'resolved.json'));
  });
});

describe('contentTypeFor', () => {
  it('maps the extensions the store serves', () => {
    expect(contentTypeFor('references/_common/title.png')).toBe('image/png');
    expect(contentTypeFor('a/B.JPG')).toBe('image/jpeg');
    expect(contentTypeFor('x.gif')).toBe('image/gif');
    expect(contentTypeFor('x.webp')).toBe('image/webp');
    expect(contentTypeFor('x.svg')).toBe('image/svg+xml');
    expect(contentTypeFor('clip.mp4')).toBe('video/mp4');
    expect(contentTypeFor('clip.webm')).toBe('video/webm');
    expect(contentTypeFor('data.json')).toBe('application/json');
    expect(contentTypeFor('showcase/replay.json.gz')).toBe('application/gzip');
    expect(contentTypeFor('specs/overview.md')).toBe('text/markdown; charset=utf-8');
    expect(contentTypeFor('specs/overview.md.hbs')).toBe('text/plain; charset=utf-8');
    expect(contentTypeFor('validation/none/a.test.ts')).toBe('text/plain; charset=utf-8');
    expect(contentTypeFor('x.js')).toBe('text/plain; charset=utf-8');
    expect(contentTypeFor('reference/menu.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('reference/theme.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeFor('notes.txt')).toBe('text/plain; charset=utf-8');
    expect(contentTypeFor('Makefile')).toBe('application/octet-stream');
    expect(contentTypeFor('archive.bin')).toBe('application/octet-stream');
    expect(contentTypeFor('.png')).toBe('application/octet-stream');
  });
});
