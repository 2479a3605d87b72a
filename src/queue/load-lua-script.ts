import { readFileSync } from 'node:fs';

const INCLUDE = /^-- @include ([a-z0-9-]+\.lua)\s*$/m;

/**
 * Reads a Lua script that sits beside this module (`scripts/<name>`) and splices in the
 * shared files it names with `-- @include <file>` (one level deep), so scripts share one
 * definition of the run-queue context without Redis having to support modules.
 */
export function loadLuaScript(name: string): string {
  const read = (file: string) => readFileSync(new URL(`./scripts/${file}`, import.meta.url), 'utf8');
  let source = read(name);
  for (let match = INCLUDE.exec(source); match; match = INCLUDE.exec(source)) {
    source = source.replace(match[0], read(match[1]!));
  }
  return source;
}
