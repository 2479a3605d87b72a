import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogFileError } from '../../src/catalog/catalog-file-error.js';
import { readVersion } from '../../src/catalog/read-version.js';
import { copyOfCatalog, EXAMPLE_CATALOG, FOGHORN, LOW_TIDE, REGATTA } from './catalog-test-helpers.js';

const read = (relDir: string) => readVersion(EXAMPLE_CATALOG, join(EXAMPLE_CATALOG, relDir));

/** Low Tide (which declares no checklist) with `toml` appended to its manifest. */
async function jamWith(toml: string) {
  const root = await copyOfCatalog([LOW_TIDE]);
  await appendFile(join(root, LOW_TIDE, 'game-jam.toml'), `\n${toml}\n`);
  return readVersion(root, join(root, LOW_TIDE));
}

describe('game jam checklists', () => {
  it('gives a jam with no checklist the generic graded categories', async () => {
    const { record } = await read(LOW_TIDE);
    expect(record.engineFormat).toBe(false);
    expect(record.commonReviewItems.map((item) => item.id)).toEqual(['playability', 'fun', 'theme', 'presentation', 'audio', 'polish', 'creativity']);
    for (const item of record.commonReviewItems) expect(item).toMatchObject({ graded: true, weight: 1, subItems: [], title: expect.any(String), text: expect.any(String) });
  });

  it('grades the categories a jam declares itself, keeping their weights and order, instead of the generic ones', async () => {
    const { record } = await read(FOGHORN);
    expect(record.commonReviewItems.map((item) => [item.id, item.weight, item.graded])).toEqual([
      ['heard', 3, true], ['fun', 2, true], ['theme', 2, true], ['playable', 1, true], ['polish', 1, true],
    ]);
    expect(record.commonReviewItems.every((item) => item.subItems.length === 0)).toBe(true);
  });

  it('defaults a declared item\'s weight to 1', async () => {
    const { record } = await jamWith('[[review_item]]\nid = "fun"\ntitle = "Fun"\ntext = "Is it fun?"\nweight = 3\n\n[[review_item]]\nid = "theme"\ntitle = "Theme"\ntext = "On theme?"');
    expect(record.commonReviewItems).toMatchObject([{ id: 'fun', weight: 3, graded: true }, { id: 'theme', weight: 1, graded: true }]);
  });

  it.each([
    ['an item with sub items', '[[review_item]]\nid = "fun"\ntitle = "Fun"\ntext = "x"\nsub_items = ["a", "b"]', 'sub_items'],
    ['an item named like the overall mark', '[[review_item]]\nid = "overall"\ntitle = "Overall"\ntext = "x"', '"overall" is reserved'],
  ])('refuses %s, naming the manifest', async (_name, toml, message) => {
    const error = await jamWith(toml).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogFileError);
    expect((error as Error).message).toContain('game-jam.toml');
    expect((error as Error).message).toContain(message);
  });

  it('leaves test cases binary', async () => {
    const { record } = await read(REGATTA);
    const items = [...record.commonReviewItems, ...record.variants.flatMap((variant) => variant.reviewItems)];
    expect(items.length).toBeGreaterThan(0);
    expect(items.some((item) => item.graded)).toBe(false);
  });
});
