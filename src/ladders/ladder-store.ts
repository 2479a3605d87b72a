import type { ClimberBodyT, LadderBodyT, ScheduleBodyT } from '../api/schemas/ladders.js';
import type { CatalogIndex } from '../catalog/catalog-index.js';
import type { GgConfigsTable } from '../db/gg-configs-table.js';
import { ladderClimbersTable, type ClimberSteering } from '../db/ladder-climbers-table.js';
import { ladderVerdictsTable } from '../db/ladder-verdicts-table.js';
import { laddersTable, type Ladder, type StoredCombo } from '../db/ladders-table.js';
import type { Database } from '../db/open-database.js';
import { badRequest, notFound } from '../errors.js';
import type { LaunchCatalog } from '../jobs/launch-catalog.js';
import { checkPermutation, initialSchedule, mergeSchedule, readDeclaration, type DeclarationDeps } from './ladder-declaration.js';
import { comboKey, comboView, readCombo } from './ladder-combination.js';

export interface LadderStoreDeps {
  db: Database;
  catalog: LaunchCatalog;
  index: CatalogIndex;
  ggConfigs: GgConfigsTable;
  /** The combinations a combo group id stands for (dangling ids answer none). */
  groupCombos(accountId: string, groupId: string): StoredCombo[];
}

/** One climber of a ladder: a resolved combination and its key. */
export interface Climber {
  key: string;
  combo: StoredCombo;
}

/**
 * Ladder declarations, schedules and steering, account-scoped: another account's id is 404.
 * Verdict evidence and top-ups build on what this reads.
 */
export function ladderStore(deps: LadderStoreDeps) {
  const ladders = laddersTable(deps.db);
  const climbers = ladderClimbersTable(deps.db);
  const verdicts = ladderVerdictsTable(deps.db);
  const declarationDeps: DeclarationDeps = {
    catalog: deps.catalog,
    versionsOf: (slug) => deps.index.versionsOf(slug),
    combo: (accountId, combo, where) => readCombo(deps.ggConfigs, accountId, combo, where),
  };

  function load(accountId: string, id: string): Ladder {
    const ladder = ladders.get(accountId, id);
    if (!ladder) throw notFound(`No ladder ${id}.`);
    return ladder;
  }

  /** The ladder as read: declaration and schedule flattened, gg members named. */
  const view = (ladder: Ladder) => ({
    id: ladder.id,
    name: ladder.name,
    runsPerCell: ladder.runsPerCell,
    gate: ladder.gate,
    comboGroupIds: ladder.comboGroupIds,
    combos: ladder.combos.map((combo) => comboView(deps.ggConfigs, ladder.accountId, combo)),
    rungs: ladder.rungs,
    updatedAt: ladder.updatedAt,
    outerAxis: ladder.outerAxis,
    paused: ladder.paused,
    autoTopUp: ladder.autoTopUp,
    bufferTarget: ladder.bufferTarget,
  });

  /** Every climber in declaration order: the groups' members, then the one-off members, each key once. */
  function climbersOf(ladder: Ladder): Climber[] {
    const out = new Map<string, Climber>();
    const combos = [...ladder.comboGroupIds.flatMap((groupId) => deps.groupCombos(ladder.accountId, groupId)), ...ladder.combos];
    for (const combo of combos) {
      const key = comboKey(combo);
      if (!out.has(key)) out.set(key, { key, combo });
    }
    return [...out.values()];
  }

  function climberKeyOf(ladder: Ladder, body: ClimberBodyT): string {
    const { key: given, priority: _p, focused: _f, held: _h, ...combo } = body;
    const key = given ?? comboKey(readCombo(deps.ggConfigs, ladder.accountId, combo, 'body'));
    if (!climbersOf(ladder).some((climber) => climber.key === key)) {
      throw badRequest(`body names the combination "${key}", which is not a climber of ladder ${ladder.id} (its groups and combos).`);
    }
    return key;
  }

  return {
    ladders,
    verdicts,
    climbers,
    load,
    view,
    climbersOf,
    list: (accountId: string) => ladders.list(accountId).map(view),
    get: (accountId: string, id: string) => view(load(accountId, id)),
    create(accountId: string, body: LadderBodyT) {
      const { declaration, rungs } = readDeclaration(declarationDeps, accountId, body, null);
      return view(ladders.create(accountId, declaration, rungs, initialSchedule(body.schedule)));
    },
    /** Rungs are reconciled by id; a PUT without `schedule` leaves the schedule alone. */
    update(accountId: string, id: string, body: LadderBodyT) {
      const current = load(accountId, id);
      const { declaration, rungs } = readDeclaration(declarationDeps, accountId, body, current);
      const schedule = body.schedule === undefined ? null : mergeSchedule(current, body.schedule);
      const updated = ladders.update(accountId, id, declaration, rungs, schedule);
      if (!updated) throw notFound(`No ladder ${id}.`);
      return view(updated);
    },
    remove(accountId: string, id: string): void {
      if (!ladders.delete(accountId, id)) throw notFound(`No ladder ${id}.`);
    },
    schedule(accountId: string, id: string) {
      const { outerAxis, paused, autoTopUp, bufferTarget } = load(accountId, id);
      return { outerAxis, paused, autoTopUp, bufferTarget };
    },
    setSchedule(accountId: string, id: string, body: ScheduleBodyT) {
      const ladder = ladders.setSchedule(accountId, id, mergeSchedule(load(accountId, id), body)) ?? load(accountId, id);
      return { outerAxis: ladder.outerAxis, paused: ladder.paused, autoTopUp: ladder.autoTopUp, bufferTarget: ladder.bufferTarget };
    },
    reorder(accountId: string, id: string, rungIds: string[]) {
      checkPermutation(load(accountId, id), rungIds);
      return view(ladders.reorder(accountId, id, rungIds) ?? load(accountId, id));
    },
    /** Writes one climber's steering whole: an omitted field is reset to its default. */
    steer(accountId: string, id: string, body: ClimberBodyT): ClimberSteering {
      const ladder = load(accountId, id);
      const key = climberKeyOf(ladder, body);
      return climbers.put(ladder.id, { key, priority: body.priority ?? 0, focused: body.focused ?? false, held: body.held ?? false });
    },
  };
}

export type LadderStore = ReturnType<typeof ladderStore>;
