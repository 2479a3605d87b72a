import type { LadderOutcome } from './climber-standing.js';
import { effectiveOutcome } from './climber-standing.js';
import { conflict, notFound } from '../errors.js';
import { decidedOnPin } from '../db/ladder-verdicts-table.js';
import type { LadderContext } from './ladder-context.js';
import { outcomeView } from './ladder-progress.js';
import { climberKeyOf, requireLadder, type ClimberNaming } from './manage-ladders.js';
import { measureLadder } from './measure-ladder.js';

export type OutcomeBody = ClimberNaming & {
  rungId: string;
  outcome?: LadderOutcome | null;
};

/**
 * `POST /ladders/{id}/outcomes`: sets (or with null clears) the manual override of one
 * climber's verdict on one rung. The override sits beside the automatic verdict and never
 * replaces it. A verdict the board resolved but no top-up stored yet is stored first; a rung
 * with no verdict at all is 409.
 */
export async function overrideOutcome(ctx: LadderContext, accountId: string, id: string, body: OutcomeBody) {
  const ladder = requireLadder(ctx, accountId, id);
  const rung = ladder.rungs.find((candidate) => candidate.id === body.rungId);
  if (!rung) throw notFound(`body.rungId "${body.rungId}" is not a rung of ladder ${ladder.id}.`);
  const { rungId: _rungId, outcome, ...naming } = body;
  const key = await climberKeyOf(ctx, ladder, naming);
  const pin = { climberKey: key, rungId: rung.id, decidedSlug: rung.slug, decidedVersion: rung.version, decidedEngine: rung.engine };

  const climber = (await measureLadder(ctx, accountId, ladder)).climbers.find((candidate) => candidate.climber.combination.key === key)!;
  const position = ladder.rungs.indexOf(rung);
  if (!climber.verdicts.has(rung.id)) {
    const standing = climber.rungs[position]!.standing;
    const live = climber.standing.unrecorded.includes(position) ? effectiveOutcome(standing) : null;
    if (!live) {
      throw conflict(`Climber "${key}" has no verdict on rung ${rung.id} (${rung.slug} ${rung.version}) yet; an override needs the gate to have decided the rung first.`);
    }
    ctx.verdicts.record(ladder.id, [{ ...pin, outcome: live }]);
  }
  ctx.verdicts.setOverride(ladder.id, pin, outcome ?? null);
  const stored = ctx.verdicts.list(ladder.id).find((verdict) => verdict.climberKey === key && verdict.rungId === rung.id && decidedOnPin(verdict, rung))!;
  return outcomeView(stored, false);
}
