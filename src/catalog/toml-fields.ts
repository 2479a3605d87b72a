import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import { CatalogFileError } from './catalog-file-error.js';

export type TomlTable = Record<string, unknown>;

export function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Parses a TOML file; a syntax error names the file and the parser's line and column. */
export async function readTomlFile(absolutePath: string, file: string): Promise<FieldReader> {
  let text: string;
  try {
    text = await readFile(absolutePath, 'utf8');
  } catch (cause) {
    throw new CatalogFileError(file, 'cannot be read', { cause });
  }
  return new FieldReader(file, parseToml(text, file));
}

export function parseToml(text: string, file: string): TomlTable {
  try {
    return parse(text) as TomlTable;
  } catch (cause) {
    if (cause instanceof TomlError) {
      // The parser's message carries a code excerpt after a blank line; keep the first line.
      const summary = cause.message.split('\n')[0] ?? 'invalid TOML';
      throw new CatalogFileError(file, `invalid TOML at line ${cause.line}, column ${cause.column}: ${summary}`, { cause });
    }
    throw cause;
  }
}

/**
 * Typed access to one TOML table, with errors that name the file and the key path, so a
 * mistake in a 2,800-line manifest is found without reading it top to bottom.
 */
export class FieldReader {
  constructor(
    readonly file: string,
    readonly table: TomlTable,
    /** Human path of this table inside the file, e.g. `spec #3`; empty at the root. */
    readonly where = '',
  ) {}

  fail(reason: string, cause?: unknown): CatalogFileError {
    return new CatalogFileError(this.file, this.where ? `${this.where}: ${reason}` : reason, { cause });
  }

  has(key: string): boolean {
    return this.table[key] !== undefined;
  }

  keys(): string[] {
    return Object.keys(this.table);
  }

  string(key: string): string {
    const value = this.optionalString(key);
    if (value === undefined || value.trim() === '') throw this.fail(`"${key}" is required and must be a non-empty string`);
    return value;
  }

  optionalString(key: string): string | undefined {
    const value = this.table[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw this.fail(`"${key}" must be a string`);
    return value;
  }

  stringArray(key: string): string[] {
    const value = this.table[key];
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      throw this.fail(`"${key}" must be an array of strings`);
    }
    return value as string[];
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.table[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') throw this.fail(`"${key}" must be true or false`);
    return value;
  }

  optionalNumber(key: string): number | undefined {
    const value = this.table[key];
    if (value === undefined) return undefined;
    // smol-toml gives integers as numbers unless they overflow, when it gives a bigint.
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.fail(`"${key}" must be a number`);
    return value;
  }

  optionalTable(key: string): FieldReader | undefined {
    const value = this.table[key];
    if (value === undefined) return undefined;
    if (!isTable(value)) throw this.fail(`"${key}" must be a table`);
    return new FieldReader(this.file, value, this.child(key));
  }

  /** An array of tables (`[[key]]` or `key = [{...}]`); absent reads as empty. */
  tables(key: string): FieldReader[] {
    const value = this.table[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw this.fail(`"${key}" must be an array of tables`);
    return value.map((item, index) => {
      const where = `${this.child(key)} #${index + 1}`;
      if (!isTable(item)) throw new CatalogFileError(this.file, `${where}: must be a table`);
      return new FieldReader(this.file, item, where);
    });
  }

  /**
   * Entries that may be written either as a bare string or as a table (`"specs/a.md"` or
   * `{ source = "specs/a.md", dest = "..." }`); strings become `{ [stringKey]: value }`.
   */
  stringsOrTables(key: string, stringKey: string): FieldReader[] {
    const value = this.table[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw this.fail(`"${key}" must be an array`);
    return value.map((item, index) => {
      const where = `${this.child(key)} #${index + 1}`;
      if (typeof item === 'string') return new FieldReader(this.file, { [stringKey]: item }, where);
      if (!isTable(item)) throw new CatalogFileError(this.file, `${where}: must be a string or a table`);
      return new FieldReader(this.file, item, where);
    });
  }

  private child(key: string): string {
    return this.where ? `${this.where}.${key}` : key;
  }
}
