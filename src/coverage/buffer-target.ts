/**
 * The review buffer target (shared by plans and ladders): how many runs a top-up may leave
 * outstanding for the reviewer, tagged `{ kind: 'bounded', runs }` or `{ kind: 'unbounded' }`.
 * The one in force is the schedule's override, else the account's setting, else the default.
 */
import { MAX_BUFFER_RUNS } from '../contract/vocabulary.js';
import { badRequest } from '../errors.js';

export type BufferTarget = { kind: 'bounded'; runs: number } | { kind: 'unbounded' };

/**
 * The compiled-in default for an account that never chose one, as the original system's
 * (roughly two cells at five runs a cell): small enough that the first reviews still steer.
 */
export const DEFAULT_BUFFER_TARGET: BufferTarget = { kind: 'bounded', runs: 10 };

/** Checks a written target (`field` names it in the 400) and returns its canonical form. */
export function bufferTargetOf(value: { kind: string; runs?: number }, field: string): BufferTarget {
  if (value.kind === 'unbounded') {
    if (value.runs !== undefined) throw badRequest(`${field}.runs is only allowed when ${field}.kind is bounded (got ${value.runs} with unbounded).`);
    return { kind: 'unbounded' };
  }
  if (value.runs === undefined) throw badRequest(`${field}.runs is required when ${field}.kind is bounded.`);
  if (value.runs > MAX_BUFFER_RUNS) throw badRequest(`${field}.runs must be at most ${MAX_BUFFER_RUNS} (got ${value.runs}); say kind unbounded for no bound.`);
  return { kind: 'bounded', runs: value.runs };
}

export const targetInForce = (override: BufferTarget | null, accountSetting: BufferTarget | null): BufferTarget =>
  override ?? accountSetting ?? DEFAULT_BUFFER_TARGET;

/** Whether a top-up may launch another cell at this occupancy. */
export const hasRoom = (target: BufferTarget, occupancy: number): boolean => target.kind === 'unbounded' || occupancy < target.runs;

/** Stored as two columns: kind (null inherits) and runs. */
export const bufferTargetFromColumns = (kind: string | null, runs: number | null): BufferTarget | null =>
  kind === null ? null : kind === 'unbounded' ? { kind: 'unbounded' } : { kind: 'bounded', runs: runs ?? 0 };

export const bufferTargetColumns = (target: BufferTarget | null) => ({
  bufferKind: target?.kind ?? null,
  bufferRuns: target?.kind === 'bounded' ? target.runs : null,
});
