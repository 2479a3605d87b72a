/** The run queue's vocabulary: job states and what its scripts take and hand back. */
export type JobState = 'queued' | 'pending' | 'dispatched' | 'starting' | 'running' | 'succeeded' | 'failed' | 'canceled';
export const ACTIVE_STATES = ['dispatched', 'starting', 'running'] as const;
export const WAITING_STATES = ['queued', 'pending'] as const;
export const TERMINAL_STATES = ['succeeded', 'failed', 'canceled'] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];
export const isTerminal = (state: JobState): state is TerminalState => (TERMINAL_STATES as readonly string[]).includes(state);

/** A job a script moved, with its pre-encoded run-event subject (see `QueuedRun.subjectJson`). */
export interface MovedJob {
  id: string;
  subjectJson: string;
}

/** What the claim script hands back: the BullMQ job data stays raw JSON text. */
export interface ClaimResult {
  /** Null when nothing was claimable. The script already published the `state-changed` events. */
  claimed: { id: string; seq: number; requestJson: string; origin: string | null } | null;
  /** Jobs this claim moved to `pending` on its way to a claimable one. */
  held: MovedJob[];
}

export type ReportOutcome =
  | 'applied' | 'same' | 'attached' | 'discarded' | 'backward' | 'unclaimed' | 'terminal' | 'not-canceled' | 'missing';

export type CancelScope = 'waiting' | 'active' | 'any';

export interface CancelResult {
  canceled: Array<MovedJob & { previous: JobState }>;
  /** Held jobs the cancel's freed slots returned to `queued`. */
  released: MovedJob[];
  skipped: Array<{ id: string; state: JobState | 'missing' }>;
}

/** One new run job as the queue stores it. */
export interface QueuedRun {
  id: string;
  /** Enqueue order; held jobs return to the queue in this order. */
  seq: number;
  harness: string;
  /** `<slug>|<model>` for a game jam, else ''. */
  jam: string;
  /** The launch body handed to the driver at claim, stored as the BullMQ job's data. */
  request: object;
  /** Run-event members (`"runId":…,"testCaseSlug":…`) without braces, pre-encoded once. */
  subjectJson: string;
  /** `plan:<id>`, `ladder:<id>` or null. */
  origin: string | null;
  /** The launch's maxRuntimeSeconds, else its version's; null when unknown (the job is never reaped for its run time). */
  maxRuntimeSeconds: number | null;
}

/** A run's state as Redis holds it, for reconcile. */
export interface RunState {
  state: JobState;
  recordId: string;
  detail: string;
  /** sha256 of the per-job token, from the claim on. */
  tokenHash: string | null;
  dispatchedAtMs: number | null;
}

/** What one stale-job sweep failed, and the held jobs the freed slots released. */
export interface SweepResult {
  failed: Array<MovedJob & { previous: JobState; detail: string }>;
  released: MovedJob[];
  /** True when this window reached the newest claim. */
  last: boolean;
  /** Entries at the oldest end looked at and kept so far: the next window's `skip`. */
  kept: number;
}
