import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listValidationFiles } from '../../src/catalog/validation-files.js';
import { CAROM, FIXTURE, FLOE, tempDir, writeFiles } from './catalog-test-helpers.js';

describe('listValidationFiles', () => {
  it('lists floe\'s validation files recursively, as sorted store-relative keys', async () => {
    const keys = await listValidationFiles(join(FIXTURE, FLOE));
    expect(keys).toHaveLength(648);
    expect(keys[0]).toBe('validation/none/audio/cue-bay.test.ts');
    expect(keys).toContain('validation/structured-2d/water/speed-scales-with-level.test.ts');
    expect(keys).toEqual([...keys].sort());
  });

  it('is empty for a version without validation/', async () => {
    expect(await listValidationFiles(join(FIXTURE, CAROM))).toEqual([]);
  });

  it('sorts by code unit, not by locale, and descends every level', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'validation/b.ts': '', 'validation/B.ts': '', 'validation/a/z/deep.ts': '', 'validation/a-b.ts': '', 'specs/x.md': '' });
    expect(await listValidationFiles(dir)).toEqual(['validation/B.ts', 'validation/a-b.ts', 'validation/a/z/deep.ts', 'validation/b.ts']);
  });
});
