import type { BackendStore } from './dialect.js';

/** One combination's steering on a ladder. A climber with no row steers at the defaults. */
export interface ClimberSteering {
  key: string;
  priority: number;
  focused: boolean;
  held: boolean;
}

/** Climber steering (`POST /ladders/{id}/climbers`), keyed by the combination's canonical key. */
export function ladderClimbersTable(store: BackendStore) {
  return {
    /** Every stored steering of the ladder, by key. */
    async byKey(ladderId: string): Promise<Map<string, ClimberSteering>> {
      const rows = await store.db.selectFrom('ladder_climbers').select(['key', 'priority', 'focused', 'held']).where('ladder_id', '=', ladderId).execute();
      return new Map(rows.map((row) => [row.key, { key: row.key, priority: row.priority, focused: row.focused === 1, held: row.held === 1 }]));
    },
    /** Writes one climber's steering whole. */
    async put(ladderId: string, steering: ClimberSteering): Promise<ClimberSteering> {
      const { key, priority } = steering;
      await store.db.insertInto('ladder_climbers')
        .values({ ladder_id: ladderId, key, priority, focused: steering.focused ? 1 : 0, held: steering.held ? 1 : 0, updated_at: new Date().toISOString() })
        .onConflict((conflict) => conflict.columns(['ladder_id', 'key']).doUpdateSet((eb) => ({
          priority: eb.ref('excluded.priority'), focused: eb.ref('excluded.focused'), held: eb.ref('excluded.held'), updated_at: eb.ref('excluded.updated_at'),
        })))
        .execute();
      return steering;
    },
  };
}

export type LadderClimbersTable = ReturnType<typeof ladderClimbersTable>;
