/** The subject of a synthetic run: which case, version, variant, harness and model it ran. */
export interface SyntheticSubject {
  testCaseSlug: string;
  testCaseVersion: string;
  variant?: string;
  harnessSlug: string;
  modelId: string;
}

/** What a benchmark varies between its synthetic runs; everything else is a fixed plausible value. */
export interface SyntheticRunOptions {
  runTimeSeconds?: number;
  uncachedInput?: number;
  cost?: number;
  loaded?: boolean;
  state?: 'completed' | 'timed_out';
  /** Default: an empty environment. */
  environment?: Record<string, string>;
}

/**
 * A driver's run record for the runs store, the `i`th of a benchmark's seed: id `run-<i>`, one
 * minute after the one before it (from 2025-01-01), ten minutes long.
 */
export function syntheticRunRecord(i: number, subject: SyntheticSubject, options: SyntheticRunOptions = {}) {
  const finished = Date.UTC(2025, 0, 1) + i * 60_000;
  return {
    id: `run-${String(i).padStart(6, '0')}`,
    startedAt: new Date(finished - 600_000).toISOString(),
    finishedAt: new Date(finished).toISOString(),
    subject: { variant: 'base', ...subject, testType: 'end-to-end' },
    tooling: {},
    environment: options.environment ?? {},
    metrics: {
      runTimeSeconds: options.runTimeSeconds ?? 100,
      tokens: { uncachedInput: options.uncachedInput ?? 1000, cachedInput: 10, output: 300, reasoning: null },
      cost: { actual: options.cost ?? 1, comparable: null },
    },
    validation: { loaded: options.loaded ?? true, checks: [] },
    links: { sourceRepo: null, playableBuild: null },
    status: { state: options.state ?? 'completed', detail: null },
  };
}
