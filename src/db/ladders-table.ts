import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { StoredCombination } from '../coverage/combinations.js';
import type { Gate } from '../ladders/gate.js';
import { coverageSchedulesTable, ownerOf, SCHEDULE_COLUMNS, scheduleFromRow, type OwnerSchedule, type ScheduleChange } from './coverage-schedules-table.js';
import { writeTransaction, type BackendStore } from './dialect.js';
import type { StoreSchema } from './store-schema.js';

export type OuterAxis = 'rung' | 'combination';

export interface Rung {
  id: string;
  slug: string;
  version: string;
  variant: string;
  /** `none` when the pin names no engine. */
  engine: string;
  /** Null inherits the ladder's `runsPerCell`. */
  runs: number | null;
}

/** A rung as written: an `id` keeps an existing rung (and its verdicts), none adds one. */
export type RungInput = Omit<Rung, 'id'> & { id?: string };

/** How a ladder is fed (stored in `coverage_schedules`, as a plan's schedule is). */
export type LadderSchedule = OwnerSchedule<OuterAxis>;

export const ladderOrigin = (ladderId: string) => `ladder:${ladderId}`;

export interface LadderDeclaration {
  name: string;
  runsPerCell: number;
  gate: Gate;
  comboGroupIds: string[];
  combos: StoredCombination[];
}

export interface Ladder extends LadderDeclaration, LadderSchedule {
  id: string;
  accountId: string;
  rungs: Rung[];
  updatedAt: string;
}

interface LadderRow {
  id: string;
  accountId: string;
  name: string;
  runsPerCell: number;
  gate: string;
  comboGroupIds: string;
  combos: string;
  outerAxis: string;
  paused: number;
  autoTopUp: number;
  bufferKind: string | null;
  bufferRuns: number | null;
  updatedAt: string;
}

function fromRow(row: LadderRow, rungs: Rung[]): Ladder {
  return {
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    runsPerCell: row.runsPerCell,
    gate: JSON.parse(row.gate) as Gate,
    comboGroupIds: JSON.parse(row.comboGroupIds) as string[],
    combos: JSON.parse(row.combos) as StoredCombination[],
    rungs,
    updatedAt: row.updatedAt,
    ...scheduleFromRow<OuterAxis>(row),
  };
}

const RUNG_COLUMNS = ['r.id', 'r.slug', 'r.version', 'r.variant', 'r.engine', 'r.runs'] as const;

const declarationColumns = (declaration: LadderDeclaration) => ({
  name: declaration.name,
  runs_per_cell: declaration.runsPerCell,
  gate: JSON.stringify(declaration.gate),
  combo_group_ids: JSON.stringify(declaration.comboGroupIds),
  combos: JSON.stringify(declaration.combos),
});

/** Ladders and their rungs; every query is scoped to the owning account. */
export function laddersTable(store: BackendStore) {
  const schedules = coverageSchedulesTable(store);
  const select = (db: Kysely<StoreSchema>) => db.selectFrom('ladders as l')
    .innerJoin('coverage_schedules as s', (join) => join.on('s.owner', '=', ownerOf('ladder', 'l.id')))
    .select([
      'l.id', 'l.account_id as accountId', 'l.name', 'l.runs_per_cell as runsPerCell', 'l.gate', 'l.combo_group_ids as comboGroupIds',
      'l.combos', ...SCHEDULE_COLUMNS, 'l.updated_at as updatedAt',
    ]);
  const rungsOf = (db: Kysely<StoreSchema>, ladderId: string): Promise<Rung[]> =>
    db.selectFrom('ladder_rungs as r').select(RUNG_COLUMNS).where('r.ladder_id', '=', ladderId).orderBy('r.position').execute();
  const owned = async (db: Kysely<StoreSchema>, accountId: string, id: string): Promise<boolean> =>
    (await db.selectFrom('ladders').select('id').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()) !== undefined;

  const get = async (accountId: string, id: string, db = store.db): Promise<Ladder | null> => {
    const row = await select(db).where('l.id', '=', id).where('l.account_id', '=', accountId).executeTakeFirst();
    return row ? fromRow(row, await rungsOf(db, id)) : null;
  };

  /** Writes the rungs in the given order: kept ids are updated in place, new ones minted, the rest deleted (with their verdicts). */
  async function reconcileRungs(trx: Kysely<StoreSchema>, ladderId: string, rungs: RungInput[]): Promise<void> {
    const current = new Set((await rungsOf(trx, ladderId)).map((rung) => rung.id));
    const kept = rungs.flatMap((rung) => (rung.id && current.has(rung.id) ? [rung.id] : []));
    let gone = trx.deleteFrom('ladder_rungs').where('ladder_id', '=', ladderId);
    if (kept.length > 0) gone = gone.where('id', 'not in', kept);
    await gone.execute();
    const added = [];
    for (const [position, { id, slug, version, variant, engine, runs }] of rungs.entries()) {
      const row = { position, slug, version, variant, engine, runs };
      if (id && current.has(id)) await trx.updateTable('ladder_rungs').set(row).where('id', '=', id).where('ladder_id', '=', ladderId).execute();
      else added.push({ ...row, id: id ?? randomUUID(), ladder_id: ladderId });
    }
    if (added.length > 0) await trx.insertInto('ladder_rungs').values(added).execute();
  }

  return {
    /** The account's ladders with their rungs: two statements, whatever the number of ladders. */
    async list(accountId: string): Promise<Ladder[]> {
      const [rows, rungRows] = await Promise.all([
        select(store.db).where('l.account_id', '=', accountId).orderBy('l.created_at').orderBy('l.id').execute(),
        store.db.selectFrom('ladder_rungs as r').innerJoin('ladders as l', 'l.id', 'r.ladder_id')
          .select([...RUNG_COLUMNS, 'r.ladder_id as ladderId']).where('l.account_id', '=', accountId)
          .orderBy('r.ladder_id').orderBy('r.position').execute(),
      ]);
      const rungs = new Map<string, Rung[]>();
      for (const { ladderId, ...rung } of rungRows) {
        const list = rungs.get(ladderId) ?? [];
        list.push(rung);
        rungs.set(ladderId, list);
      }
      return rows.map((row) => fromRow(row, rungs.get(row.id) ?? []));
    },
    get: (accountId: string, id: string) => get(accountId, id),
    exists: (accountId: string, id: string): Promise<boolean> => owned(store.db, accountId, id),
    create: (accountId: string, declaration: LadderDeclaration, rungs: RungInput[], schedule: LadderSchedule): Promise<Ladder> =>
      writeTransaction(store, async (trx) => {
        const id = randomUUID();
        const now = new Date().toISOString();
        await trx.insertInto('ladders').values({ id, account_id: accountId, ...declarationColumns(declaration), created_at: now, updated_at: now }).execute();
        await schedules.put(ladderOrigin(id), accountId, schedule, trx);
        await reconcileRungs(trx, id, rungs.map(({ id: _ignored, ...rung }) => rung));
        return (await get(accountId, id, trx))!;
      }),
    /** Null when the account holds no such ladder. A null schedule leaves the stored one alone; one given changes the fields it names. */
    update: (accountId: string, id: string, declaration: LadderDeclaration, rungs: RungInput[], schedule: ScheduleChange<OuterAxis> | null): Promise<Ladder | null> =>
      writeTransaction(store, async (trx) => {
        const result = await trx.updateTable('ladders').set({ ...declarationColumns(declaration), updated_at: new Date().toISOString() })
          .where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
        if (result.numUpdatedRows === 0n) return null;
        if (schedule) await schedules.change(ladderOrigin(id), accountId, schedule, trx);
        await reconcileRungs(trx, id, rungs);
        return get(accountId, id, trx);
      }),
    /** `rungIds` must already be a permutation of the ladder's rung ids. */
    reorder: (accountId: string, id: string, rungIds: string[]): Promise<Ladder | null> =>
      writeTransaction(store, async (trx) => {
        const result = await trx.updateTable('ladders').set({ updated_at: new Date().toISOString() })
          .where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
        if (result.numUpdatedRows === 0n) return null;
        for (const [position, rungId] of rungIds.entries()) {
          await trx.updateTable('ladder_rungs').set({ position }).where('id', '=', rungId).where('ladder_id', '=', id).execute();
        }
        return get(accountId, id, trx);
      }),
    async delete(accountId: string, id: string): Promise<boolean> {
      const result = await store.db.deleteFrom('ladders').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

export type LaddersTable = ReturnType<typeof laddersTable>;
