import { sql } from 'kysely';
import type { BackendStore } from './dialect.js';
import { inFlight } from './jobs-table.js';

export const IN_FLIGHT_STATES = ['queued', 'pending', 'dispatched', 'starting', 'running'] as const;
export type InFlightState = (typeof IN_FLIGHT_STATES)[number];

export interface HarnessStateCount {
  harness: string;
  state: InFlightState;
  jobs: number;
}

/** Counts of in-flight run jobs per harness and state. */
export function jobStateCounts(store: BackendStore): () => Promise<HarnessStateCount[]> {
  return async () =>
    (await store.db
      .selectFrom('jobs')
      .select(['harness_slug as harness', 'state', (eb) => eb.fn.countAll<number>().as('jobs')])
      .where(sql<boolean>`${sql.raw(inFlight())}`)
      .groupBy(['harness_slug', 'state'])
      .orderBy('harness_slug')
      .orderBy('state')
      .execute()) as HarnessStateCount[];
}
