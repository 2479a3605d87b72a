import { chmod, cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';

export { BEACON, CRABBER, EXAMPLE_CATALOG, FOGHORN, LOW_TIDE, REGATTA } from '../helpers/example-catalog.js';

const made: string[] = [];

/** A fresh temporary folder, removed after the test. */
export async function tempDir(prefix = 'catalog-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Writes files (path → text) under `root`, creating folders. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** A writable checkout holding copies of the given example catalog version folders (or of `from`'s). */
export async function copyOfCatalog(versionDirs: string[], from = EXAMPLE_CATALOG): Promise<string> {
  const root = await tempDir('checkout-');
  for (const dir of versionDirs) await cp(join(from, dir), join(root, dir), { recursive: true });
  await makeWritable(root);
  return root;
}

// A checkout may be read-only on disk; its copies must not be, or edits and cleanup fail.
async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await makeWritable(path);
    else if (entry.isFile()) await chmod(path, 0o644);
  }
}

/** A minimal valid test case version: one variant, one spec template, one reference. */
export function minimalCase(slug: string, extra: { manifest?: string; files?: Record<string, string> } = {}): Record<string, string> {
  return {
    'test-case.toml': [
      `slug = "${slug}"`,
      'name = "Mini"',
      'difficulty = "easy"',
      'summary = "A tiny case."',
      'description = "description.md"',
      'changelog = "changelog.md"',
      'prompt = "prompt.hbs"',
      'variants = ["variants/base.toml"]',
      extra.manifest ?? '',
      '[[spec]]',
      'source = "specs/rules.md.hbs"',
    ].join('\n'),
    'description.md': 'About mini.',
    'changelog.md': 'Introduced.',
    'prompt.hbs': 'Build {{variant.name}} in {{workspace}}.{{#each specs}} Read {{path}}.{{/each}}',
    'specs/rules.md.hbs': 'Rules for {{variant.slug}} at {{version}} on {{engine.slug}}.',
    'variants/base.toml': 'slug = "base"\nname = "Base"\n',
    ...extra.files,
  };
}

/** Writes `files` as a version folder at `relDir` of `root` and returns its absolute path. */
export async function writeVersion(root: string, relDir: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, relDir);
  await writeFiles(dir, files);
  return dir;
}
