import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogFileError } from '../../src/catalog/catalog-file-error.js';
import { readVersion } from '../../src/catalog/read-version.js';
import { copyOfFixture, FIXTURE, GRACE_PERIOD } from './catalog-test-helpers.js';

/** The fixture jam with `toml` appended to its manifest. */
async function jamWith(toml: string) {
  const root = await copyOfFixture(GRACE_PERIOD);
  await appendFile(join(root, GRACE_PERIOD, 'game-jam.toml'), `\n${toml}\n`);
  return readVersion(root, join(root, GRACE_PERIOD));
}

describe('game jam checklists', () => {
  it('gives a jam with no checklist the generic graded categories', async () => {
    const { record } = await readVersion(FIXTURE, join(FIXTURE, GRACE_PERIOD));
    expect(record.engineFormat).toBe(false);
    expect(record.commonReviewItems.map((item) => item.id)).toEqual(['playability', 'fun', 'theme', 'presentation', 'audio', 'polish', 'creativity']);
    for (const item of record.commonReviewItems) expect(item).toMatchObject({ graded: true, weight: 1, subItems: [], title: expect.any(String), text: expect.any(String) });
  });

  it('grades the items a jam declares itself, keeping their weights, instead of the generic ones', async () => {
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
    const { record } = await readVersion(FIXTURE, join(FIXTURE, 'test-cases/end-to-end/easy/carom/v1.1.0'));
    const items = [...record.commonReviewItems, ...record.variants.flatMap((variant) => variant.reviewItems)];
    expect(items.length).toBeGreaterThan(0);
    expect(items.some((item) => item.graded)).toBe(false);
  });
});
