import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { CatalogFileError } from './catalog-file-error.js';
import type { FieldReader } from './toml-fields.js';

/** Converts an OS path to the forward-slash form keys and messages use. */
export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/**
 * One version folder of a checkout, and the rules for paths its manifests name: relative,
 * inside the folder (a version is self-contained, and only the folder is copied to the
 * store), and existing.
 */
export class VersionFolder {
  /** Path of the folder relative to the checkout root, forward slashes. */
  readonly relDir: string;

  constructor(
    readonly checkoutRoot: string,
    readonly dir: string,
  ) {
    this.relDir = toPosix(relative(checkoutRoot, dir));
  }

  /** Checkout-relative name of a file in this folder, for messages. */
  fileName(key: string): string {
    return this.relDir ? `${this.relDir}/${key}` : key;
  }

  absolute(key: string): string {
    return join(this.dir, ...key.split('/'));
  }

  /**
   * Validates a path a manifest names and returns it as a store-relative key: forward
   * slashes, no `./`, no trailing slash. Absolute paths and `..` are refused because the
   * store only holds this folder.
   */
  key(raw: string, reader: FieldReader, field: string): string {
    const slashed = raw.replaceAll('\\', '/');
    if (slashed.startsWith('/') || isAbsolute(raw) || /^[a-zA-Z]:/.test(slashed)) {
      throw reader.fail(`"${field}" must be relative to the version folder, got "${raw}"`);
    }
    const parts = slashed.split('/').filter((part) => part !== '' && part !== '.');
    if (parts.length === 0) throw reader.fail(`"${field}" must name a path, got "${raw}"`);
    if (parts.includes('..')) throw reader.fail(`"${field}" must stay inside the version folder, got "${raw}"`);
    if (parts.some((part) => part.includes('\0'))) throw reader.fail(`"${field}" contains a NUL byte`);
    return parts.join('/');
  }

  async requireFile(key: string, reader: FieldReader, field: string): Promise<void> {
    await this.require(key, reader, field, 'file');
  }

  async requireDir(key: string, reader: FieldReader, field: string): Promise<void> {
    await this.require(key, reader, field, 'dir');
  }

  async requireEntry(key: string, reader: FieldReader, field: string): Promise<'file' | 'dir'> {
    return this.require(key, reader, field, 'any');
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.absolute(key));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Reads a text file this version inlines into its record. The real path must stay inside
   * the checkout: a symlink to a file elsewhere on the host must not end up served.
   */
  async readText(key: string, reader: FieldReader, field: string): Promise<string> {
    await this.requireFile(key, reader, field);
    const absolute = this.absolute(key);
    const real = await realpath(absolute);
    const root = await realpath(this.checkoutRoot);
    const rel = relative(root, real);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      throw reader.fail(`"${field}" (${key}) is a symlink that leaves the checkout`);
    }
    try {
      return await readFile(absolute, 'utf8');
    } catch (cause) {
      throw new CatalogFileError(this.fileName(key), 'cannot be read', { cause });
    }
  }

  private async require(key: string, reader: FieldReader, field: string, want: 'file' | 'dir' | 'any'): Promise<'file' | 'dir'> {
    let kind: 'file' | 'dir' | 'other';
    try {
      const info = await stat(this.absolute(key));
      kind = info.isFile() ? 'file' : info.isDirectory() ? 'dir' : 'other';
    } catch {
      throw reader.fail(`"${field}" names ${this.fileName(key)}, which does not exist`);
    }
    if (kind === 'other' || (want !== 'any' && kind !== want)) {
      const expected = want === 'dir' ? 'a folder' : want === 'file' ? 'a file' : 'a file or folder';
      throw reader.fail(`"${field}" names ${this.fileName(key)}, which is not ${expected}`);
    }
    return kind;
  }
}
