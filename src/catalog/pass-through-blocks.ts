import { camelCase, camelCaseKeys } from './camel-case-keys.js';
import { isTable, type FieldReader } from './toml-fields.js';

/**
 * Splits a manifest's keys into the ones the reader understands and per-kind blocks it
 * serves as authored. A table or array of tables the reader does not know (`[canvas]`,
 * `[voxel]`, `[sheet]`, `[toolchain]`, ...) passes through camelCased, whole. An unknown
 * plain key is left unread, so the file's key audit reports it as a warning.
 */
export function passThroughBlocks(reader: FieldReader, known: ReadonlySet<string>, reserved: ReadonlySet<string>): Record<string, unknown> {
  const blocks: Record<string, unknown> = {};
  for (const key of reader.keys()) {
    if (known.has(key)) continue;
    const value = reader.table[key];
    const isBlock = isTable(value) || (Array.isArray(value) && value.length > 0 && value.every(isTable));
    if (!isBlock) continue;
    const name = camelCase(key);
    if (reserved.has(name)) throw reader.fail(`table [${key}] clashes with the resolved field "${name}"`);
    reader.passThrough(key);
    blocks[name] = camelCaseKeys(value);
  }
  return blocks;
}
