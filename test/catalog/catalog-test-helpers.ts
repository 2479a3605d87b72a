import { chmod, cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach } from 'vitest';

/** The shared fixture catalog, read in place and never written. */
export const FIXTURE = resolve(__dirname, '../../../shared/fixtures/catalog');

export const CAROM = 'test-cases/end-to-end/easy/carom/v1.1.0';
export const FLOE = 'test-cases/end-to-end/easy/floe/v3.0.0';
export const COIN_SPIN = 'test-cases/asset-generation/easy/coin-spin/v1.0.0';
export const GRACE_PERIOD = 'game-jams/grace-period/v1.0.0';

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

/** A writable checkout holding copies of the given fixture version folders. */
export async function copyOfFixture(...versionDirs: string[]): Promise<string> {
  const root = await tempDir('checkout-');
  for (const dir of versionDirs) await cp(join(FIXTURE, dir), join(root, dir), { recursive: true });
  await makeWritable(root);
  return root;
}

// The fixture is read-only on disk; its copies must not be, or edits and cleanup fail.
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
