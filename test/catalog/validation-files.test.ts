import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listValidationFiles } from '../../src/catalog/validation-files.js';
import { CRABBER, EXAMPLE_CATALOG, REGATTA, tempDir, writeFiles } from './catalog-test-helpers.js';

describe('listValidationFiles', () => {
  it('lists crabber\'s per-engine validation files recursively, as sorted store-relative keys', async () => {
    const keys = await listValidationFiles(join(EXAMPLE_CATALOG, CRABBER));
    // Twelve scripts and one support module for each of three engines.
    expect(keys).toHaveLength(39);
    expect(keys[0]).toBe('validation/none/boat/grid-moves.test.ts');
    expect(keys).toContain('validation/structured-2d/support/harbor.ts');
    expect(keys).toEqual([...keys].sort());
  });

  it('is empty for a version without validation/', async () => {
    expect(await listValidationFiles(join(EXAMPLE_CATALOG, REGATTA))).toEqual([]);
  });

  it('sorts by code unit, not by locale, and descends every level', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'validation/b.ts': '', 'validation/B.ts': '', 'validation/a/z/deep.ts': '', 'validation/a-b.ts': '', 'specs/x.md': '' });
    expect(await listValidationFiles(dir)).toEqual(['validation/B.ts', 'validation/a-b.ts', 'validation/a/z/deep.ts', 'validation/b.ts']);
  });
});
