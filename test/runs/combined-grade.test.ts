import { describe, expect, it } from 'vitest';
import { combinedGrade } from '../../src/runs/run-states.js';

describe('combinedGrade', () => {
  it.each([
    [[], null],
    [['great'], 'great'],
    [['great', 'incredible'], 'great'], // 9: equally near 8 and 10, the lower wins
    [['broken', 'incredible'], 'neutral'], // 5
    [['poor', 'neutral'], 'poor'], // 3.5: equally near 2 and 5
    [['incredible', 'incredible', 'poor'], 'great'], // 7.33
    [['broken', 'broken', 'great'], 'poor'], // 2.67
  ] as const)('combines %j into %s', (marks, expected) => {
    expect(combinedGrade(marks)).toBe(expected);
  });
});
