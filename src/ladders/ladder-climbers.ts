import { resolveCombination, type ResolvedCombination } from '../coverage/combinations.js';
import { ggConfigLookup } from '../coverage/coverage-context.js';
import { uniqueCombinations } from '../coverage/coverage-cells.js';
import type { ClimberSteering } from '../db/ladder-climbers-table.js';
import type { Ladder } from '../db/ladders-table.js';
import type { LadderContext } from './ladder-context.js';

/** One climber: a resolved combination with the ladder's steering of it. */
export interface Climber {
  combination: ResolvedCombination;
  steering: ClimberSteering;
}

/**
 * The ladder's climbers in feeding order: priority high to low, `focused` first among equal
 * priorities, then declaration order (the combo groups' members, then the ladder's own, each
 * combination once; dangling group ids read as empty). The combination's counting key is the
 * climber key steering and verdicts are stored against.
 */
export async function ladderClimbers(ctx: LadderContext, ladder: Ladder): Promise<Climber[]> {
  const configs = await ggConfigLookup(ctx.coverage.jobs, ladder.accountId);
  const [groups, steering] = await Promise.all([ctx.coverage.groups.byIds(ladder.accountId, ladder.comboGroupIds), ctx.climbers.byKey(ladder.id)]);
  const members = ladder.comboGroupIds.flatMap((id) => {
    const group = groups.get(id);
    return group?.kind === 'combo' ? group.combos : [];
  });
  const combinations = uniqueCombinations([...members, ...ladder.combos].map((combo) => resolveCombination(combo, configs)));
  const climbers = combinations.map((combination) => ({
    combination,
    steering: steering.get(combination.key) ?? { key: combination.key, priority: 0, focused: false, held: false },
  }));
  // Array.prototype.sort is stable, so declaration order breaks the remaining ties.
  return climbers.sort((a, b) => b.steering.priority - a.steering.priority || Number(b.steering.focused) - Number(a.steering.focused));
}
