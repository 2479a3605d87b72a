import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every source file's relative imports, as paths under src/ ("api/app.ts" imports "errors.ts"). */
function importsBySource(): Array<{ file: string; imported: string }> {
  const edges: Array<{ file: string; imported: string }> = [];
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const path = join(SRC, file);
    for (const [, spec] of readFileSync(path, 'utf8').matchAll(IMPORT)) {
      edges.push({ file, imported: relative(SRC, resolve(dirname(path), spec!)).replace(/\.js$/, '.ts') });
    }
  }
  return edges;
}

const topFolder = (path: string) => path.split('/')[0]!;

describe('imports run one way: routes, then domain, then store and queue, then the contract', () => {
  const edges = importsBySource();

  it('finds the imports it judges', () => {
    expect(edges.some(({ file, imported }) => file.startsWith('api/') && imported.startsWith('contract/'))).toBe(true);
  });

  it('keeps the contract on the ground floor: its schemas import nothing of ours but each other', () => {
    expect(edges.filter(({ file, imported }) => topFolder(file) === 'contract' && topFolder(imported) !== 'contract')).toEqual([]);
  });

  it('keeps every module outside src/api, the auth service included, from importing the API', () => {
    expect(edges.filter(({ file, imported }) => topFolder(file) !== 'api' && topFolder(imported) === 'api')).toEqual([]);
  });
});
