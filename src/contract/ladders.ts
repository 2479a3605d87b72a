import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';
import { BufferTarget, CellOut, CombinationIn, CombinationOut } from './coverage.js';
import { NullableInteger } from './jobs.js';
import { RATINGS } from './vocabulary.js';

/** Most rungs one ladder may hold. */
export const MAX_RUNGS = 50;
/** Ceiling of `runsPerCell` and of a rung's `runs` (the same ceiling a coverage plan has). */
export const MAX_LADDER_RUNS = 100;

const Text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });
const Id = Type.String({ minLength: 1, maxLength: 100 });

export const Rating = Type.Union(RATINGS.map((rating) => Type.Literal(rating)), { description: 'functional rating tier' });

export const GateThreshold = Type.Union([
  Type.Object({ kind: Type.Literal('count'), runs: Type.Integer({ minimum: 0, maximum: MAX_LADDER_RUNS, description: 'runs that must clear the floor; 0 is read as 1' }) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('fraction'), fraction: Type.Number({ description: 'share of completed runs; clamped into 0..=1 when applied' }) }, { additionalProperties: false }),
], { description: 'tagged by kind' });

export const GateBody = Type.Object({
  floor: Rating,
  threshold: GateThreshold,
  unloadedCountsAsBroken: Type.Optional(Type.Boolean({ default: true })),
  earlyStop: Type.Optional(Type.Boolean({ default: false })),
}, { additionalProperties: false });

export const GateOut = Type.Object({
  floor: Rating,
  threshold: GateThreshold,
  unloadedCountsAsBroken: Type.Boolean(),
  earlyStop: Type.Boolean(),
});

export const RungBody = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'an existing rung id to keep; omit to add a rung' })),
  slug: Text(200, 'test case slug'),
  version: Text(200, 'exact pinned version'),
  variant: Text(200),
  engine: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'absent or null: none' }))),
  runs: Type.Optional(NullableInteger({ minimum: 0, maximum: MAX_LADDER_RUNS, description: 'null inherits runsPerCell; 0 is read as 1' })),
}, { additionalProperties: false });

export const RungOut = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  version: Type.String(),
  variant: Type.String(),
  engine: Type.String(),
  runs: Nullable(Type.Integer()),
});

/**
 * A rung as `POST /ladders/{id}/rungs/order` answers it, the console's shape (the original's
 * `LadderRung`): `engine` is omitted on the `none` engine and `runs` when the rung inherits.
 */
export const ReorderedRungOut = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  version: Type.String(),
  variant: Type.String(),
  engine: Type.Optional(Type.String({ description: 'absent: the none engine' })),
  runs: Type.Optional(Type.Integer({ description: 'absent: inherits runsPerCell' })),
});

export const OuterAxis = Type.Union([Type.Literal('rung'), Type.Literal('combination')]);

/** The tagged target, or a bare integer read as `{ kind: 'bounded', runs }`, or null (inherit). */
// One `['integer', 'null']` branch: separate branches would let a type-coercing validator read 0 as null or null as 0.
// A bare bound above 500 is refused by the service, whose message names `runs` (a union's would say "must be object").
export const BufferTargetBody = Type.Union([BufferTarget, NullableInteger({ minimum: 0, maximum: 1_000_000 })], {
  description: 'the ladder\'s override of the account buffer target; null inherits',
});

export const ScheduleBody = Type.Object({
  outerAxis: Type.Optional(OuterAxis),
  paused: Type.Optional(Type.Boolean()),
  autoTopUp: Type.Optional(Type.Boolean()),
  bufferTarget: Type.Optional(BufferTargetBody),
}, { additionalProperties: false });
export type ScheduleBodyT = Static<typeof ScheduleBody>;

export const ScheduleOut = Type.Object({
  outerAxis: OuterAxis,
  paused: Type.Boolean(),
  autoTopUp: Type.Boolean(),
  bufferTarget: Nullable(BufferTarget),
});

export const LadderBody = Type.Object({
  name: Text(200),
  runsPerCell: Type.Integer({ minimum: 0, maximum: MAX_LADDER_RUNS, description: '0 is read as 1' }),
  gate: Type.Optional(GateBody),
  comboGroupIds: Type.Optional(Type.Array(Id, { maxItems: 200 })),
  combos: Type.Optional(Type.Array(CombinationIn, { maxItems: 1000 })),
  rungs: Type.Array(RungBody, { minItems: 1, maxItems: MAX_RUNGS, description: '1 to 50 rungs, low to high' }),
  schedule: Type.Optional(ScheduleBody),
}, { additionalProperties: false });
export type LadderBodyT = Static<typeof LadderBody>;

export const LadderOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  runsPerCell: Type.Integer(),
  gate: GateOut,
  comboGroupIds: Type.Array(Type.String()),
  combos: Type.Array(CombinationOut),
  rungs: Type.Array(RungOut),
  updatedAt: Type.String(),
  outerAxis: OuterAxis,
  paused: Type.Boolean(),
  autoTopUp: Type.Boolean(),
  bufferTarget: Nullable(BufferTarget),
});

export const LadderList = Type.Array(LadderOut);
export const LadderParams = Type.Object({ id: Id });

export const RungOrderBody = Type.Object({ rungIds: Type.Array(Id, { maxItems: MAX_RUNGS }) }, { additionalProperties: false });

/** Names a climber: its `key`, the console's `{ combination: { … } }`, or the combination's fields flattened. */
const ClimberNaming = {
  key: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'the climber key the board shows; or name the combination' })),
  combination: Type.Optional(CombinationIn),
  ...CombinationIn.properties,
};

export const ClimberBody = Type.Object({
  ...ClimberNaming,
  priority: Type.Optional(Type.Integer({ minimum: -2147483648, maximum: 2147483647, default: 0 })),
  focused: Type.Optional(Type.Boolean({ default: false })),
  held: Type.Optional(Type.Boolean({ default: false })),
}, { additionalProperties: false });
export type ClimberBodyT = Static<typeof ClimberBody>;

export const ClimberSteeringOut = Type.Object({
  key: Type.String(),
  priority: Type.Integer(),
  focused: Type.Boolean(),
  held: Type.Boolean(),
});

export const LadderOutcomeWire = Type.Union([Type.Literal('advanced'), Type.Literal('walled')]);

export const OutcomeBody = Type.Object({
  ...ClimberNaming,
  rungId: Id,
  outcome: Type.Optional(Nullable(LadderOutcomeWire)),
}, { additionalProperties: false });

export const RungOutcomeOut = Type.Object({
  rungId: Type.String(),
  decidedVersion: Type.String(),
  outcome: LadderOutcomeWire,
  effective: LadderOutcomeWire,
  overrideOutcome: Nullable(LadderOutcomeWire),
  overrideAt: Nullable(Type.String()),
  decidedAt: Type.String(),
  stale: Type.Boolean(),
  recorded: Type.Boolean(),
});

const Count = Type.Integer({ minimum: 0 });

export const RungTally = Type.Object({
  completed: Count,
  judged: Type.Integer({ minimum: 0, description: 'completed runs the gate has a rating for' }),
  unjudged: Type.Integer({ minimum: 0, description: 'completed runs waiting on your review' }),
  passing: Type.Integer({ minimum: 0, description: 'judged runs at the floor or better' }),
  pending: Type.Integer({ minimum: 0, description: 'runs the rung has yet to complete against its target' }),
  required: Type.Integer({ minimum: 0, description: 'passing runs the threshold demands' }),
});

export const GateOutcome = Type.Union([Type.Literal('advance'), Type.Literal('wall'), Type.Literal('undecided')]);

export const LadderCellOut = Type.Object({
  rungId: Type.String(),
  position: Count,
  ...CellOut.properties,
  tally: RungTally,
  outcome: GateOutcome,
});

export const ClimberStatus = Type.Union(['climbing', 'awaitingReview', 'walled', 'held', 'toppedOut'].map((status) => Type.Literal(status)));

export const LadderClimberOut = Type.Object({
  key: Type.String({ description: 'the climber key steering and verdicts are stored against; echo it, never build it' }),
  ...CombinationOut.properties,
  priority: Type.Integer(),
  focused: Type.Boolean(),
  held: Type.Boolean(),
  status: ClimberStatus,
  currentRung: Nullable(LadderCellOut),
  outcomes: Type.Array(RungOutcomeOut),
  unlaunchable: Nullable(Type.String()),
});

export const LadderProgressOut = Type.Object({
  ladderId: Type.String(),
  outerAxis: OuterAxis,
  rungs: Type.Array(Type.Object({ ...RungOut.properties, position: Count, latestVersion: Type.String(), stale: Type.Boolean() })),
  climbers: Type.Array(LadderClimberOut),
  climbersToppedOut: Count,
  climbersWalled: Count,
  runsMissing: Count,
  runsUnreviewed: Count,
  runsOutstanding: Count,
  bufferTarget: BufferTarget,
});
