import { randomUUID } from 'node:crypto';
import type { StoredCombination } from '../coverage/combinations.js';
import type { Gate } from '../ladders/gate.js';
import { coverageSchedulesTable, SCHEDULE_COLUMNS, scheduleFromRow, type OwnerSchedule } from './coverage-schedules-table.js';
import type { Database } from './open-database.js';

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
  outerAxis: OuterAxis;
  paused: number;
  autoTopUp: number;
  bufferKind: string | null;
  bufferRuns: number | null;
  updatedAt: string;
}

type RungRow = Rung & { ladderId: string };

const LADDER_SELECT = `SELECT l.id, l.account_id AS accountId, l.name, l.runs_per_cell AS runsPerCell, l.gate, l.combo_group_ids AS comboGroupIds,
  l.combos, ${SCHEDULE_COLUMNS}, l.updated_at AS updatedAt FROM ladders AS l JOIN coverage_schedules AS s ON s.owner = 'ladder:' || l.id`;

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

const stripLadderId = ({ ladderId: _ladderId, ...rung }: RungRow): Rung => rung;

/** Ladders and their rungs; every query is scoped to the owning account. */
export function laddersTable(db: Database) {
  const schedules = coverageSchedulesTable(db);
  const RUNG_COLUMNS = 'id, ladder_id AS ladderId, slug, version, variant, engine, runs';
  const listRows = db.prepare<[string], LadderRow>(`${LADDER_SELECT} WHERE l.account_id = ? ORDER BY l.created_at, l.id`);
  const oneRow = db.prepare<[string, string], LadderRow>(`${LADDER_SELECT} WHERE l.id = ? AND l.account_id = ?`);
  const accountRungs = db.prepare<[string], RungRow>(
    `SELECT r.id, r.ladder_id AS ladderId, r.slug, r.version, r.variant, r.engine, r.runs
     FROM ladder_rungs r JOIN ladders l ON l.id = r.ladder_id WHERE l.account_id = ? ORDER BY r.ladder_id, r.position`,
  );
  const ladderRungs = db.prepare<[string], RungRow>(`SELECT ${RUNG_COLUMNS} FROM ladder_rungs WHERE ladder_id = ? ORDER BY position`);
  const insertLadder = db.prepare(
    `INSERT INTO ladders (id, account_id, name, runs_per_cell, gate, combo_group_ids, combos, created_at, updated_at)
     VALUES (@id, @accountId, @name, @runsPerCell, @gate, @comboGroupIds, @combos, @now, @now)`,
  );
  const updateDeclaration = db.prepare(
    `UPDATE ladders SET name = @name, runs_per_cell = @runsPerCell, gate = @gate, combo_group_ids = @comboGroupIds, combos = @combos,
       updated_at = @now WHERE id = @id`,
  );
  const touch = db.prepare<[string, string]>('UPDATE ladders SET updated_at = ? WHERE id = ?');
  const insertRung = db.prepare(
    'INSERT INTO ladder_rungs (id, ladder_id, position, slug, version, variant, engine, runs) VALUES (@id, @ladderId, @position, @slug, @version, @variant, @engine, @runs)',
  );
  const updateRung = db.prepare(
    'UPDATE ladder_rungs SET position = @position, slug = @slug, version = @version, variant = @variant, engine = @engine, runs = @runs WHERE id = @id AND ladder_id = @ladderId',
  );
  const moveRung = db.prepare<[number, string, string]>('UPDATE ladder_rungs SET position = ? WHERE id = ? AND ladder_id = ?');
  const deleteRung = db.prepare<[string, string]>('DELETE FROM ladder_rungs WHERE id = ? AND ladder_id = ?');
  const exists = db.prepare<[string, string], number>('SELECT EXISTS (SELECT 1 FROM ladders WHERE id = ? AND account_id = ?)').pluck();
  const deleteLadder = db.prepare<[string, string]>('DELETE FROM ladders WHERE id = ? AND account_id = ?');

  const declarationParams = (id: string, declaration: LadderDeclaration, now: string) => ({
    id,
    name: declaration.name,
    runsPerCell: declaration.runsPerCell,
    gate: JSON.stringify(declaration.gate),
    comboGroupIds: JSON.stringify(declaration.comboGroupIds),
    combos: JSON.stringify(declaration.combos),
    now,
  });

  /** Writes the rungs in the given order: kept ids are updated in place, new ones minted, the rest deleted (with their verdicts). */
  function reconcileRungs(ladderId: string, rungs: RungInput[]): void {
    const current = new Set(ladderRungs.all(ladderId).map((rung) => rung.id));
    const kept = new Set(rungs.flatMap((rung) => (rung.id ? [rung.id] : [])));
    for (const id of current) if (!kept.has(id)) deleteRung.run(id, ladderId);
    rungs.forEach((rung, position) => {
      const row = { ...rung, id: rung.id ?? randomUUID(), ladderId, position };
      if (rung.id && current.has(rung.id)) updateRung.run(row);
      else insertRung.run(row);
    });
  }

  const get = (accountId: string, id: string): Ladder | null => {
    const row = oneRow.get(id, accountId);
    return row ? fromRow(row, ladderRungs.all(id).map(stripLadderId)) : null;
  };

  const create = db.transaction((accountId: string, declaration: LadderDeclaration, rungs: RungInput[], schedule: LadderSchedule): Ladder => {
    const id = randomUUID();
    const now = new Date().toISOString();
    insertLadder.run({ ...declarationParams(id, declaration, now), accountId });
    schedules.put(ladderOrigin(id), accountId, schedule);
    reconcileRungs(id, rungs.map(({ id: _ignored, ...rung }) => rung));
    return get(accountId, id)!;
  });

  const update = db.transaction(
    (accountId: string, id: string, declaration: LadderDeclaration, rungs: RungInput[], schedule: LadderSchedule | null): Ladder | null => {
      if (!oneRow.get(id, accountId)) return null;
      const now = new Date().toISOString();
      updateDeclaration.run(declarationParams(id, declaration, now));
      if (schedule) schedules.put(ladderOrigin(id), accountId, schedule);
      reconcileRungs(id, rungs);
      return get(accountId, id);
    },
  );

  const reorder = db.transaction((accountId: string, id: string, rungIds: string[]): Ladder | null => {
    if (!oneRow.get(id, accountId)) return null;
    rungIds.forEach((rungId, position) => moveRung.run(position, rungId, id));
    touch.run(new Date().toISOString(), id);
    return get(accountId, id);
  });

  return {
    list(accountId: string): Ladder[] {
      const rungs = new Map<string, Rung[]>();
      for (const row of accountRungs.all(accountId)) {
        const list = rungs.get(row.ladderId) ?? [];
        list.push(stripLadderId(row));
        rungs.set(row.ladderId, list);
      }
      return listRows.all(accountId).map((row) => fromRow(row, rungs.get(row.id) ?? []));
    },
    get,
    exists: (accountId: string, id: string): boolean => exists.get(id, accountId) === 1,
    create: (accountId: string, declaration: LadderDeclaration, rungs: RungInput[], schedule: LadderSchedule): Ladder =>
      create(accountId, declaration, rungs, schedule),
    /** Null when the account holds no such ladder. A null schedule leaves the stored one alone. */
    update: (accountId: string, id: string, declaration: LadderDeclaration, rungs: RungInput[], schedule: LadderSchedule | null) =>
      update(accountId, id, declaration, rungs, schedule),
    /** `rungIds` must already be a permutation of the ladder's rung ids. */
    reorder: (accountId: string, id: string, rungIds: string[]) => reorder(accountId, id, rungIds),
    delete: (accountId: string, id: string): boolean => deleteLadder.run(id, accountId).changes > 0,
  };
}

export type LaddersTable = ReturnType<typeof laddersTable>;
