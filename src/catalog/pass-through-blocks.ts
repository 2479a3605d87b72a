import { camelCase, camelCaseKeys } from './camel-case-keys.js';
import { isTable, type FieldReader } from './toml-fields.js';

/**
 * Splits a manifest's keys into the ones the reader understands and per-kind blocks it
 * serves as authored. A table or array of tables the reader does not know (`[canvas]`,
 * `[sheet]`, `[toolchain]`, ...) passes through camelCased. An unknown plain key is an
 * error: the format lists every root key, so one we do not know is almost always a typo
 * (`experimantal = true` silently ignored would publish an experimental version).
 */
export function passThroughBlocks(reader: FieldReader, known: ReadonlySet<string>, reserved: ReadonlySet<string>): Record<string, unknown> {
  const blocks: Record<string, unknown> = {};
  for (const key of reader.keys()) {
    if (known.has(key)) continue;
    const value = reader.table[key];
    const isBlock = isTable(value) || (Array.isArray(value) && value.length > 0 && value.every(isTable));
    if (!isBlock) throw reader.fail(`unknown key "${key}"`);
    const name = camelCase(key);
    if (reserved.has(name)) throw reader.fail(`table [${key}] clashes with the resolved field "${name}"`);
    blocks[name] = camelCaseKeys(value);
  }
  return blocks;
}
