import { describe, expect, it } from 'vitest';
import { readGroups } from '../../src/catalog/read-groups.js';
import { EXAMPLE_CATALOG, tempDir, writeFiles } from './catalog-test-helpers.js';

const group = (slug: string, name: string, extra = '') => `slug = "${slug}"\nname = "${name}"\ncases = ["a", "b"]\n${extra}`;

describe('readGroups', () => {
  it('reads the example group, members in authored order, without checking they exist', async () => {
    const { groups, problems } = await readGroups(EXAMPLE_CATALOG);
    expect(problems).toEqual([]);
    expect(groups[0]).toEqual({
      slug: 'harbor-lights',
      name: 'Harbor Lights',
      summary: expect.stringContaining('one small harbor town'),
      cases: expect.arrayContaining(['beacon', 'tugline', 'low-tide']),
    });
    expect(groups[0]!.cases.slice(0, 3)).toEqual(['beacon', 'tugline', 'low-tide']);
  });

  it('orders ranked groups first by rank, then the rest by name', async () => {
    const root = await tempDir();
    await writeFiles(root, {
      'test-case-groups/zeta/test-case-group.toml': group('zeta', 'Zeta', 'rank = 1'),
      'test-case-groups/alpha/test-case-group.toml': group('alpha', 'Alpha'),
      'test-case-groups/mid/test-case-group.toml': group('mid', 'Mid', 'rank = 2'),
      'test-case-groups/beta/test-case-group.toml': group('beta', 'beta'),
      'test-case-groups/first/test-case-group.toml': group('first', 'Yankee', 'rank = 1'),
    });
    const { groups, problems } = await readGroups(root);
    expect(problems).toEqual([]);
    expect(groups.map((entry) => entry.slug)).toEqual(['first', 'zeta', 'mid', 'alpha', 'beta']);
    expect(groups[3]).not.toHaveProperty('summary');
    expect(groups[0]).not.toHaveProperty('rank');
  });

  it('reports a bad group file and keeps the others', async () => {
    const root = await tempDir();
    await writeFiles(root, {
      'test-case-groups/good/test-case-group.toml': group('good', 'Good'),
      'test-case-groups/moved/test-case-group.toml': group('renamed', 'Moved'),
      'test-case-groups/twice/test-case-group.toml': 'slug = "twice"\nname = "Twice"\ncases = ["a", "a"]',
      'test-case-groups/broken/test-case-group.toml': 'slug = "broken',
    });
    const { groups, problems } = await readGroups(root);
    expect(groups.map((entry) => entry.slug)).toEqual(['good']);
    expect(problems.map((problem) => problem.file).sort()).toEqual([
      'test-case-groups/broken/test-case-group.toml',
      'test-case-groups/moved/test-case-group.toml',
      'test-case-groups/twice/test-case-group.toml',
    ]);
  });

  it('is empty for a checkout without groups', async () => {
    expect(await readGroups(await tempDir())).toEqual({ groups: [], problems: [] });
  });
});
