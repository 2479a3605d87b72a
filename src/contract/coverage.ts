import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';
import { MAX_BUFFER_RUNS, MAX_QUEUE_RUNS } from './vocabulary.js';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Id = Type.String({ minLength: 1, maxLength: 100 });
const SlotModels = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ minLength: 1, maxLength: 300 }), {
  description: 'a model per launch slot of the gg configuration, keyed by slot name',
});

/** A pinned case: a cell counts runs of exactly this version, variant and engine. */
export const PinnedCase = Type.Object(
  {
    slug: Type.String({ minLength: 1, maxLength: 200, description: 'test case slug' }),
    version: Type.String({ minLength: 1, maxLength: 200, description: 'exact pinned version' }),
    variant: Type.String({ minLength: 1, maxLength: 200 }),
    engine: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'engine slug; absent or null means none' }))),
  },
  { additionalProperties: false },
);
export type PinnedCaseT = Static<typeof PinnedCase>;

/**
 * A combination as written: the harness shape (`harness`, `model`, `provider?`) or the gg
 * shape (`ggConfigId: "saved:<id>"`, `ggSlotModels`). Which shape a member is, and what it
 * lacks, is checked by the service so the 400 names the member's index.
 */
export const CombinationIn = Type.Object(
  {
    harness: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    model: Type.Optional(Type.String({ maxLength: 300 })),
    provider: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    ggConfigId: Type.Optional(Nullable(Type.String({ maxLength: 120, description: 'saved:<id> of a gg configuration of the account' }))),
    ggSlotModels: Type.Optional(SlotModels),
    ggConfigName: Type.Optional(Nullable(Type.String({ maxLength: 200, description: 'ignored on write; filled on read' }))),
  },
  { additionalProperties: false },
);
export type CombinationInT = Static<typeof CombinationIn>;

export const CombinationOut = Type.Object({
  harness: Type.String(),
  model: Type.String({ description: 'a gg member reads its root agent model' }),
  provider: Nullable(Type.String()),
  ggConfigId: Nullable(Type.String()),
  ggConfigName: Nullable(Type.String({ description: "the configuration's current name; null when it no longer exists" })),
  ggSlotModels: SlotModels,
});

export const BufferTarget = Type.Object(
  {
    kind: Type.Union([Type.Literal('bounded'), Type.Literal('unbounded')]),
    runs: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_BUFFER_RUNS, description: 'bounded only: runs outstanding at most (0..=500); 0 never tops up' })),
  },
  { additionalProperties: false, description: "{ kind: 'bounded', runs } or { kind: 'unbounded' }" },
);
export type BufferTargetIn = Static<typeof BufferTarget>;

export const OuterAxis = Type.Union([Type.Literal('case'), Type.Literal('combination')]);

export const GroupBody = Type.Object(
  {
    name: Name,
    kind: Type.Union([Type.Literal('combo'), Type.Literal('case')]),
    combos: Type.Optional(Type.Array(CombinationIn, { maxItems: 1000 })),
    cases: Type.Optional(Type.Array(PinnedCase, { maxItems: 1000 })),
  },
  { additionalProperties: false },
);
export type GroupBodyT = Static<typeof GroupBody>;

export const GroupOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('combo'), Type.Literal('case')]),
  combos: Type.Array(CombinationOut),
  cases: Type.Array(PinnedCase),
  updatedAt: Type.String(),
});

export const ScheduleBody = Type.Object(
  {
    outerAxis: Type.Optional(OuterAxis),
    paused: Type.Optional(Type.Boolean()),
    autoTopUp: Type.Optional(Type.Boolean()),
    bufferTarget: Type.Optional(Nullable(BufferTarget)),
  },
  { additionalProperties: false, description: 'absent fields keep their stored value; bufferTarget null inherits the account setting' },
);
export type ScheduleBodyT = Static<typeof ScheduleBody>;

export const ScheduleOut = Type.Object({
  outerAxis: OuterAxis,
  paused: Type.Boolean(),
  autoTopUp: Type.Boolean(),
  bufferTarget: Nullable(BufferTarget),
});

export const PlanBody = Type.Object(
  {
    name: Name,
    runsPerCell: Type.Integer({ description: '1..=100 runs wanted per case x combination cell' }),
    comboGroupIds: Type.Optional(Type.Array(Id, { maxItems: 200 })),
    caseGroupIds: Type.Optional(Type.Array(Id, { maxItems: 200 })),
    combos: Type.Optional(Type.Array(CombinationIn, { maxItems: 1000 })),
    cases: Type.Optional(Type.Array(PinnedCase, { maxItems: 1000 })),
    schedule: Type.Optional(ScheduleBody),
  },
  { additionalProperties: false },
);
export type PlanBodyT = Static<typeof PlanBody>;

export const PlanOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  runsPerCell: Type.Integer(),
  comboGroupIds: Type.Array(Type.String()),
  caseGroupIds: Type.Array(Type.String()),
  combos: Type.Array(CombinationOut),
  cases: Type.Array(PinnedCase),
  updatedAt: Type.String(),
  ...ScheduleOut.properties,
});

export const SettingsBody = Type.Object({ bufferTarget: BufferTarget }, { additionalProperties: false });
export const SettingsOut = Type.Object({ bufferTarget: BufferTarget, isDefault: Type.Boolean() });

const CellIdentity = {
  slug: Type.String(),
  version: Type.String(),
  variant: Type.String(),
  engine: Type.String(),
  ...CombinationOut.properties,
};
export const CellOut = Type.Object({
  ...CellIdentity,
  desired: Type.Integer(),
  completed: Type.Integer({ description: 'completed runs of this cell, counted globally' }),
  inFlight: Type.Integer({ description: 'queued, pending, dispatched, starting and running jobs, counted globally' }),
  pending: Type.Integer({ description: 'the held subset of inFlight' }),
  unreviewed: Type.Integer({ description: 'completed runs the requester has not reviewed' }),
  remaining: Type.Integer({ description: 'max(0, desired - completed - inFlight)' }),
  runsPending: Type.Integer({ description: 'same as pending' }),
  runsUnreviewed: Type.Integer({ description: 'same as unreviewed' }),
  runsOutstanding: Type.Integer({ description: 'inFlight + unreviewed' }),
  latestVersion: Type.String({ description: 'newest ingested version of the case; empty when none is' }),
  stale: Type.Boolean(),
  unlaunchable: Nullable(Type.String({ description: 'why a top-up cannot launch this cell' })),
});

const Rollups = {
  outerAxis: OuterAxis,
  cellsSatisfied: Type.Integer(),
  cellsTotal: Type.Integer(),
  runsMissing: Type.Integer(),
  runsPending: Type.Integer(),
  runsUnreviewed: Type.Integer(),
  runsOutstanding: Type.Integer({ description: "the plan's buffer occupancy: its jobs in flight plus its cells' unreviewed runs" }),
  bufferTarget: BufferTarget,
};
export const MatrixOut = Type.Object({ cells: Type.Array(CellOut), ...Rollups });

/** `GET /coverage-plans/summary`: a bare array (the original console reads it so). */
export const SummaryOut = Type.Array(Type.Object({
  id: Type.String(),
  name: Type.String(),
  runsPerCell: Type.Integer(),
  cellsSatisfied: Type.Integer(),
  cellsTotal: Type.Integer(),
  runsMissing: Type.Integer(),
  runsUnreviewed: Type.Integer(),
  paused: Type.Boolean(),
  autoTopUp: Type.Boolean(),
}));

/** A cell as a top-up answer or a queue entry names it: provider and gg fields only when set. */
const CellRef = {
  rungId: Type.Optional(Type.String({ description: "the ladder rung the cell belongs to; absent on a plan's" })),
  slug: Type.String(),
  version: Type.String(),
  variant: Type.String(),
  engine: Type.String(),
  harness: Type.String(),
  model: Type.String({ description: "the member's model (not the launched one)" }),
  provider: Type.Optional(Type.String()),
  ggConfigId: Type.Optional(Type.String()),
  ggConfigName: Type.Optional(Type.String()),
  ggSlotModels: Type.Optional(SlotModels),
};
export const TopUpOut = Type.Object({
  bufferTarget: BufferTarget,
  outstanding: Type.Optional(Type.Integer({ description: 'the occupancy the walk started from; absent when the top-up was skipped' })),
  enqueued: Type.Integer(),
  cells: Type.Array(Type.Object({ ...CellRef, runs: Type.Integer(), jobIds: Type.Array(Type.String()) })),
  unlaunchable: Type.Array(Type.Object({ ...CellRef, reason: Type.String() })),
  skipped: Type.Optional(Type.Union([Type.Literal('busy'), Type.Literal('paused')])),
});

export const QueueQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_QUEUE_RUNS, description: 'default and most: 600' })) },
  { additionalProperties: false },
);
export const QueueOut = Type.Object({
  runs: Type.Array(Type.Object({
    runId: Type.String(),
    rungId: CellRef.rungId,
    slug: Type.String(),
    version: Type.String(),
    variant: Type.String(),
    engine: Type.String(),
    harness: Type.String(),
    model: Type.String({ description: 'the model the run recorded' }),
    ggConfigId: CellRef.ggConfigId,
    ggConfigName: CellRef.ggConfigName,
    ggSlotModels: CellRef.ggSlotModels,
    finishedAt: Nullable(Type.String()),
  })),
  truncated: Type.Boolean(),
});

export const PauseBody = Type.Object({ paused: Type.Boolean() }, { additionalProperties: false });
export const HaltOut = Type.Object({ canceled: Type.Integer(), includedActive: Type.Boolean() });

export const CoverageIdParams = Type.Object({ id: Id });
