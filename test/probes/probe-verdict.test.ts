import { describe, expect, it } from 'vitest';
import { probeVerdict } from '../../src/probes/probe-verdict.js';

const groups = [{ language: 'rust', scenario: 'baseline' }, { language: 'rust', scenario: 'missing-docview' }];
const items = (scenario: string, passes: number, fails: number, voids = 0) => [
  ...Array.from({ length: passes }, () => ({ language: 'rust', scenario, label: 'x', pass: true })),
  ...Array.from({ length: fails }, () => ({ language: 'rust', scenario, label: 'x', pass: false })),
  ...Array.from({ length: voids }, () => ({ language: 'rust', scenario, label: null, pass: false })),
];

describe('probeVerdict', () => {
  it('is ready when every group passes at least 80% of its scored calls; void calls are not scored', () => {
    expect(probeVerdict([...items('baseline', 4, 1, 3), ...items('missing-docview', 8, 2)], groups)).toEqual({ verdict: 'ready', passRate: 12 / 15, scored: 15 });
  });

  it('is not-ready when one group falls under the bar, even if the overall rate clears it', () => {
    expect(probeVerdict([...items('baseline', 30, 0), ...items('missing-docview', 3, 1)], groups).verdict).toBe('not-ready');
  });

  it('is not-ready when a probed group has no scored call, and has no pass rate without any', () => {
    expect(probeVerdict(items('baseline', 5, 0), groups).verdict).toBe('not-ready');
    expect(probeVerdict(items('baseline', 0, 0, 4), groups)).toEqual({ verdict: 'not-ready', passRate: null, scored: 0 });
  });
});
