import { sql, type Kysely } from 'kysely';
import { writeTransaction, type Engine, type Store } from './dialect.js';

/**
 * A change to the rows a migration cannot say in SQL alike on both engines (a backfill that
 * decodes JSON, say): written once, in TypeScript through the store layer, and run once per
 * database right after the SQL migration it follows (`after`) and before any later one, on
 * either engine. It belongs to an expand release; the contract migration that drops what it
 * copied from ships one release later, and on a new database it still runs after the step.
 */
export interface DataStep {
  /** The number of the SQL migration this step follows. */
  after: number;
  /** Its record in `schema_data_steps`: `NNNN_what_it_does`, unique. */
  name: string;
  run(db: Kysely<unknown>, engine: Engine): Promise<void>;
}

/** The backend's data steps, in the order they run. None yet: the first one goes here. */
export const BACKEND_DATA_STEPS: readonly DataStep[] = [];

/**
 * Brings a database to every SQL migration and data step: `migrate(upTo)` applies the SQL
 * migrations up to a number (both engines' runners take one), and each step runs between
 * its migration and the next. A step runs in one transaction with its record, claimed first:
 * a second process migrating at the same moment waits for that claim and skips the step,
 * and a step that fails leaves neither its changes nor its record, to run again at the next
 * boot. Both engines' SQL runners create `schema_data_steps` beside `schema_migrations`.
 */
export async function migrateWithDataSteps<DB>(
  store: Store<DB>,
  steps: readonly DataStep[],
  migrate: (upTo: number) => unknown,
): Promise<void> {
  for (const step of [...steps].sort((a, b) => a.after - b.after)) {
    await migrate(step.after);
    await runOnce(store as Store<unknown>, step);
  }
  await migrate(Infinity);
}

async function runOnce(store: Store<unknown>, step: DataStep): Promise<void> {
  await writeTransaction(store, async (trx) => {
    const claimed = await sql<{ name: string }>`INSERT INTO schema_data_steps (name, applied_at) VALUES (${step.name}, ${new Date().toISOString()})
      ON CONFLICT (name) DO NOTHING RETURNING name`.execute(trx);
    if (claimed.rows.length === 0) return;
    try {
      await step.run(trx, store.engine);
    } catch (error) {
      throw new Error(`Data step ${step.name} failed: ${(error as Error).message}`, { cause: error });
    }
  });
}
