/** The pass bar of every (language, scenario) group: at least this share of its scored calls. */
export const PASS_BAR = 0.8;

export interface VerdictItem {
  language: string;
  scenario: string;
  /** Null for a void call, which is not scored. */
  label: string | null;
  pass: boolean;
}

export interface Verdict {
  verdict: 'ready' | 'not-ready';
  /** Passes over scored calls; null when none was scored. */
  passRate: number | null;
  scored: number;
}

/**
 * `ready` iff every probed (language, scenario) group has at least one scored call and
 * passes at least 80% of them. `groups` names every probed group, so one whose calls all
 * failed to land counts against the verdict.
 */
export function probeVerdict(items: readonly VerdictItem[], groups: ReadonlyArray<{ language: string; scenario: string }>): Verdict {
  const tally = new Map<string, { scored: number; passes: number }>();
  const key = (language: string, scenario: string) => `${language}\u0000${scenario}`;
  for (const group of groups) tally.set(key(group.language, group.scenario), { scored: 0, passes: 0 });
  let scored = 0;
  let passes = 0;
  for (const item of items) {
    if (item.label === null) continue;
    scored++;
    if (item.pass) passes++;
    const group = tally.get(key(item.language, item.scenario));
    if (!group) continue;
    group.scored++;
    if (item.pass) group.passes++;
  }
  const ready = tally.size > 0 && [...tally.values()].every((group) => group.scored > 0 && group.passes >= PASS_BAR * group.scored);
  return { verdict: ready ? 'ready' : 'not-ready', passRate: scored === 0 ? null : passes / scored, scored };
}
