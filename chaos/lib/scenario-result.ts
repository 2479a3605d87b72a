import { formatTable } from '../../src/cli/format-table.js';

export type FigureValue = string | number | boolean;

/** What a scenario hands back to run-all.ts for the closing table. */
export interface ScenarioResult {
  verdict: 'PASS' | 'FAIL' | 'SKIP';
  /** The key figures, in order, as label and value: `['jobs lost', 0]`. */
  figures: Array<[string, FigureValue]>;
  /** The checks that failed, or why the scenario was skipped or did not finish. */
  reasons: string[];
}

/**
 * Judges a scenario: PASS when every check holds, FAIL naming each one that does not.
 * `figures` are the few that go in the table; the scenario prints its full set itself.
 */
export function judge(figures: Record<string, FigureValue>, checks: Record<string, boolean>): ScenarioResult {
  const reasons = Object.entries(checks).filter(([, held]) => !held).map(([check]) => check);
  return { verdict: reasons.length ? 'FAIL' : 'PASS', figures: Object.entries(figures), reasons };
}

export function skipped(reason: string): ScenarioResult {
  return { verdict: 'SKIP', figures: [], reasons: [reason] };
}

/** A scenario that threw: it did not finish, so it proved nothing. */
export function unfinished(error: unknown): ScenarioResult {
  return { verdict: 'FAIL', figures: [], reasons: [`did not finish: ${String(error instanceof Error ? error.message : error).split('\n')[0]}`] };
}

/** The table `npm run chaos` ends with: one row per scenario run, with its seconds. */
export function resultTable(rows: Array<{ name: string; seconds: number; result: ScenarioResult }>): string {
  return formatTable(
    ['scenario', 'verdict', 'seconds', 'figures', 'failed checks / reason'],
    rows.map(({ name, seconds, result }) => [
      name,
      result.verdict,
      seconds.toFixed(0),
      result.figures.map(([label, value]) => `${label}: ${value}`).join(', '),
      result.reasons.join('; '),
    ]),
  );
}
