import { inFlight } from './jobs-table.js';
import type { Database } from './open-database.js';

export const IN_FLIGHT_STATES = ['queued', 'pending', 'dispatched', 'starting', 'running'] as const;
export type InFlightState = (typeof IN_FLIGHT_STATES)[number];

export interface HarnessStateCount {
  harness: string;
  state: InFlightState;
  jobs: number;
}

/** Counts of in-flight run jobs per harness and state. */
export function jobStateCounts(db: Database): () => HarnessStateCount[] {
  const select = db.prepare<[], HarnessStateCount>(
    `SELECT harness_slug AS harness, state, count(*) AS jobs FROM jobs
      WHERE ${inFlight()}
      GROUP BY harness_slug, state ORDER BY harness_slug, state`,
  );
  return () => select.all();
}
