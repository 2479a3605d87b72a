/** Outcome labels of a probe call, as items carry them (open-points, "Model probes"). */
export const PROBE_LABELS = [
  'no-submission',
  'stray-tool-call',
  'no-program',
  'empty',
  'tool-token',
  'xml-pseudo-tools',
  'cot-leak',
  'fenced',
  'correct-calls',
  'missing-calls',
  'docview-first',
  'called-undocumented',
  'no-docview',
] as const;

export type ProbeLabel = (typeof PROBE_LABELS)[number];

/** The only labels that pass. */
export const PASSING_LABELS: ReadonlySet<ProbeLabel> = new Set(['correct-calls', 'docview-first']);

export type ProbeScenario = 'baseline' | 'missing-docview';

/** What a case's scenario check needs, in the arm's own spellings. */
export interface CaseCheck {
  scenario: ProbeScenario;
  /** Baseline: every one must be called. */
  needed: string[];
  /** Missing-docview: calling one without opening its view first fails. */
  forbidden: string[];
  /** The arm's spelling of the call that opens a documentation view. */
  openCall: string;
  /** Missing-docview: the key of the view that is not open (`gg.shell.shell`); null in baseline. */
  viewKey: string | null;
}
