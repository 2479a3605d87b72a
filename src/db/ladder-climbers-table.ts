import type { Database } from './open-database.js';

/** One combination's steering on a ladder. A climber with no row steers at the defaults. */
export interface ClimberSteering {
  key: string;
  priority: number;
  focused: boolean;
  held: boolean;
}

interface Row {
  key: string;
  priority: number;
  focused: number;
  held: number;
}

const fromRow = (row: Row): ClimberSteering => ({ key: row.key, priority: row.priority, focused: row.focused === 1, held: row.held === 1 });

/** Climber steering (`POST /ladders/{id}/climbers`), keyed by the combination's canonical key. */
export function ladderClimbersTable(db: Database) {
  const list = db.prepare<[string], Row>('SELECT key, priority, focused, held FROM ladder_climbers WHERE ladder_id = ?');
  const upsert = db.prepare(
    `INSERT INTO ladder_climbers (ladder_id, key, priority, focused, held, updated_at) VALUES (@ladderId, @key, @priority, @focused, @held, @now)
     ON CONFLICT (ladder_id, key) DO UPDATE SET priority = excluded.priority, focused = excluded.focused, held = excluded.held, updated_at = excluded.updated_at`,
  );
  return {
    /** Every stored steering of the ladder, by key. */
    byKey: (ladderId: string): Map<string, ClimberSteering> => new Map(list.all(ladderId).map((row) => [row.key, fromRow(row)])),
    /** Writes one climber's steering whole. */
    put(ladderId: string, steering: ClimberSteering): ClimberSteering {
      upsert.run({ ladderId, ...steering, focused: steering.focused ? 1 : 0, held: steering.held ? 1 : 0, now: new Date().toISOString() });
      return steering;
    },
  };
}

export type LadderClimbersTable = ReturnType<typeof ladderClimbersTable>;
