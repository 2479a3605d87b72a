import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import { CatalogFileError } from './catalog-file-error.js';

export type TomlTable = Record<string, unknown>;

export function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A key of an interpreted table that no reader asked for: it has no effect, so the author should hear of it. */
export interface KeyWarning {
  file: string;
  /** Where the key sits, e.g. `reference #2.colour`. */
  key: string;
  why: string;
}

/**
 * The readers made from one file. A key nobody read is unknown to the format at that place;
 * tables served whole (pass-through blocks) are left out, since nothing in them is lost.
 */
class KeyAudit {
  readonly readers: FieldReader[] = [];
  readonly passThrough = new Set<string>();
  // By table, not by reader: several readers may each read some keys of one table.
  private readonly readKeys = new Map<TomlTable, Set<string>>();

  keysRead(table: TomlTable): Set<string> {
    let keys = this.readKeys.get(table);
    if (!keys) this.readKeys.set(table, (keys = new Set()));
    return keys;
  }

  warnings(): KeyWarning[] {
    const reported = new Set<TomlTable>();
    return this.readers
      .filter((reader) => !this.passThrough.has(reader.topKey) && !reported.has(reader.table) && reported.add(reader.table))
      .flatMap((reader) => reader.unreadKeys().map((key) => ({
        file: reader.file,
        key: reader.where ? `${reader.where}.${key}` : key,
        why: `not a key the catalog format defines ${reader.where ? `in ${reader.where}` : 'at the root of this file'}; it is ignored`,
      })));
  }
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
      const unclosed = unclosedString(text, cause);
      if (unclosed) throw new CatalogFileError(file, `invalid TOML: ${unclosed}`, { cause });
      // The parser's message carries a code excerpt after a blank line; keep the first line.
      const summary = cause.message.split('\n')[0] ?? 'invalid TOML';
      throw new CatalogFileError(file, `invalid TOML at line ${cause.line}, column ${cause.column}: ${summary}`, { cause });
    }
    throw cause;
  }
}

/**
 * The parser reports a string left open as "unfinished string" (at its opening quote) or,
 * for a one-line string the line ends inside, as a control character at the line's end.
 * Both mean the same to an author: say where the string opens and that it is not closed.
 */
function unclosedString(text: string, error: TomlError): string | null {
  const line = text.split(/\r?\n/)[error.line - 1] ?? '';
  if (/unfinished string/.test(error.message)) {
    return `the string that opens at line ${error.line}, column ${error.column} is not closed before the end of the file`;
  }
  if (!/control characters are not allowed in strings/.test(error.message) || error.column <= line.length) return null;
  const opening = openStringColumn(line);
  if (opening === null) return null;
  return `the string that opens at line ${error.line}, column ${opening} is not closed on that line (close it with ${line[opening - 1]} `
    + 'before the line ends, or use a triple-quoted string for text over several lines)';
}

/** 1-based column of the quote opening a one-line string still open at the end of `line`. */
function openStringColumn(line: string): number | null {
  let open: { quote: string; column: number } | null = null;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (open) {
      if (open.quote === '"' && char === '\\') i++;
      else if (char === open.quote) open = null;
    } else if (char === '#') {
      return null;
    } else if (char === '"' || char === "'") {
      open = { quote: char, column: i + 1 };
    }
  }
  return open?.column ?? null;
}

/**
 * Typed access to one TOML table, with errors that name the file and the key path, so a
 * mistake in a 2,800-line manifest is found without reading it top to bottom.
 */
export class FieldReader {
  private readonly read: Set<string>;

  constructor(
    readonly file: string,
    readonly table: TomlTable,
    /** Human path of this table inside the file, e.g. `spec #3`; empty at the root. */
    readonly where = '',
    private readonly audit = new KeyAudit(),
    /** The root key this table descends from; empty at the root. */
    readonly topKey = '',
  ) {
    this.read = audit.keysRead(table);
    audit.readers.push(this);
  }

  /** Keys of this table no reader has asked for. */
  unreadKeys(): string[] {
    return Object.keys(this.table).filter((key) => !this.read.has(key));
  }

  /** Every key of this file's interpreted tables that nothing read (call once reading is done). */
  warnings(): KeyWarning[] {
    return this.audit.warnings();
  }

  /** Marks a root key as a table served whole: it and everything under it are not audited. */
  passThrough(key: string): void {
    this.read.add(key);
    this.audit.passThrough.add(key);
  }

  /** The raw value, for readers with a shape of their own; counts as read. */
  raw(key: string): unknown {
    this.read.add(key);
    return this.table[key];
  }

  fail(reason: string, cause?: unknown): CatalogFileError {
    return new CatalogFileError(this.file, this.where ? `${this.where}: ${reason}` : reason, { cause });
  }

  has(key: string): boolean {
    this.read.add(key);
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
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw this.fail(`"${key}" must be a string`);
    return value;
  }

  stringArray(key: string): string[] {
    const value = this.raw(key);
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      throw this.fail(`"${key}" must be an array of strings`);
    }
    return value as string[];
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') throw this.fail(`"${key}" must be true or false`);
    return value;
  }

  optionalNumber(key: string): number | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    // smol-toml gives integers as numbers unless they overflow, when it gives a bigint.
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.fail(`"${key}" must be a number`);
    return value;
  }

  optionalTable(key: string): FieldReader | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (!isTable(value)) throw this.fail(`"${key}" must be a table`);
    return new FieldReader(this.file, value, this.child(key), this.audit, this.topKey || key);
  }

  /** An array of tables (`[[key]]` or `key = [{...}]`); absent reads as empty. */
  tables(key: string): FieldReader[] {
    const value = this.raw(key);
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw this.fail(`"${key}" must be an array of tables`);
    return value.map((item, index) => {
      const where = `${this.child(key)} #${index + 1}`;
      if (!isTable(item)) throw new CatalogFileError(this.file, `${where}: must be a table`);
      return new FieldReader(this.file, item, where, this.audit, this.topKey || key);
    });
  }

  /**
   * Entries that may be written either as a bare string or as a table (`"specs/a.md"` or
   * `{ source = "specs/a.md", dest = "..." }`); strings become `{ [stringKey]: value }`.
   */
  stringsOrTables(key: string, stringKey: string): FieldReader[] {
    const value = this.raw(key);
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw this.fail(`"${key}" must be an array`);
    return value.map((item, index) => {
      const where = `${this.child(key)} #${index + 1}`;
      if (typeof item === 'string') return new FieldReader(this.file, { [stringKey]: item }, where, this.audit, this.topKey || key);
      if (!isTable(item)) throw new CatalogFileError(this.file, `${where}: must be a string or a table`);
      return new FieldReader(this.file, item, where, this.audit, this.topKey || key);
    });
  }

  private child(key: string): string {
    return this.where ? `${this.where}.${key}` : key;
  }
}
