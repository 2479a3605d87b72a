import { Kind, Type, TypeRegistry, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';

interface IntegerBounds {
  minimum: number;
  maximum: number;
  description?: string;
}

// The same rule for TypeBox's compiler (batch entries are checked one by one with it).
TypeRegistry.Set<IntegerBounds>('NullableInteger', (schema, value) =>
  value === null || (Number.isInteger(value) && (value as number) >= schema.minimum && (value as number) <= schema.maximum));

/**
 * An integer or null as one `type: ['integer', 'null']` schema. A union would let Ajv's
 * type coercion turn `0` into `null` when the integer branch's bound rejects it.
 */
export const NullableInteger = (bounds: IntegerBounds) =>
  Type.Unsafe<number | null>({ ...bounds, [Kind]: 'NullableInteger', type: ['integer', 'null'] });

export const HARNESS_SLUGS = ['claude', 'codex', 'cline', 'antigravity', 'goose', 'kilo', 'opencode', 'pi'] as const;
/** The eight catalogue harnesses plus `gg`, the project's own. */
export const LAUNCHABLE_HARNESSES = [...HARNESS_SLUGS, 'gg'] as const;

export const JobStateSchema = Type.Union(
  ['queued', 'pending', 'dispatched', 'starting', 'running', 'succeeded', 'failed', 'canceled'].map((state) => Type.Literal(state)),
  { description: 'job lifecycle state' },
);

const Slug = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const LaunchBody = Type.Object(
  {
    testCase: Slug('test case slug'),
    version: Slug('exact test case version, e.g. v1.0.0'),
    variant: Slug('variant slug, e.g. base'),
    harness: Slug('one of the eight harness slugs, or gg'),
    model: Type.String({ minLength: 1, maxLength: 300, description: 'model id passed to the harness' }),
    provider: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    engine: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'engine slug; absent means none' }))),
    orchestrator: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    maxRuntimeSeconds: Type.Optional(NullableInteger({ minimum: 1, maximum: 7 * 24 * 3600 })),
    presetId: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'saved gg configuration id (gg harness)' }))),
    authMode: Type.Optional(Nullable(Type.Union([Type.Literal('auto'), Type.Literal('subscription'), Type.Literal('api-key')]))),
    retryCount: Type.Optional(NullableInteger({ minimum: 0, maximum: 10 })),
    ggCapabilitySet: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
  },
  { additionalProperties: false, $id: 'LaunchBody', title: 'Launch body' },
);
export type LaunchBodyT = Static<typeof LaunchBody>;

/** `?origin=plan:<id>|ladder:<id>`: the schedule owner a hand launch counts toward (the caller's own). */
export const LaunchOriginQuery = Type.Object(
  { origin: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'plan:<id> or ladder:<id> of the caller' })) },
  { additionalProperties: false },
);

export const LaunchAck = Type.Object({
  jobId: Type.String({ format: 'uuid' }),
  statusUrl: Type.String(),
  liveUrl: Type.String(),
});

export const MAX_BATCH = 1000;
export const LaunchBatchBody = Type.Object(
  // Entries are validated one by one by the service so one bad entry does not sink the batch.
  { runs: Type.Array(Type.Unknown(), { maxItems: MAX_BATCH, description: `at most ${MAX_BATCH} launch bodies` }) },
  { additionalProperties: false },
);

export const BatchRefusal = Type.Object({
  error: Type.String({ description: 'why the entry was refused, naming the field or value' }),
  code: Type.String({ description: 'the error code a single launch would have answered with' }),
});
export const LaunchBatchAck = Type.Object({
  jobs: Type.Array(Type.Union([Type.Object({ jobId: Type.String() }), BatchRefusal])),
});

export const ClaimedJob = Type.Object({
  jobId: Type.String(),
  jobToken: Type.String({ description: 'per-job token the driver presents on /jobs/{id}/status and /events' }),
  request: Type.Object({}, { additionalProperties: true, description: 'the launch body' }),
  origin: Nullable(Type.String({ description: 'plan:<id>, ladder:<id>, or null' })),
});

export const StatusUpdate = Type.Object(
  {
    state: Type.Union([
      Type.Literal('starting'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('canceled'),
    ]),
    record: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description: 'the run record' }))),
    detail: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  },
  { additionalProperties: false },
);
export type StatusUpdateT = Static<typeof StatusUpdate>;

export const JobStatus = Type.Object({
  id: Type.String(),
  state: JobStateSchema,
  recordId: Nullable(Type.String()),
  detail: Nullable(Type.String()),
});

export const ActiveJob = Type.Object({
  runId: Type.String(),
  state: JobStateSchema,
  testCaseSlug: Type.String(),
  testCaseVersion: Type.String(),
  variant: Type.String(),
  harnessSlug: Type.String(),
  modelId: Type.String(),
  engine: Type.String(),
  ggPreset: Nullable(Type.String()),
  origin: Nullable(Type.String()),
  enqueuedAt: Type.String(),
  startedAt: Nullable(Type.String()),
});
export const ActiveJobs = Type.Object({ jobs: Type.Array(ActiveJob) });

export const RelayedEvents = Type.Array(Type.Unknown(), { maxItems: 10_000, description: 'normalized driver events' });

export const CancelSweep = Type.Object({
  canceled: Type.Integer({ description: 'jobs this sweep canceled' }),
  includedWaiting: Type.Boolean({ description: 'the sweep covered queued and pending jobs' }),
  includedActive: Type.Boolean({ description: 'the sweep covered dispatched, starting and running jobs' }),
});

export const JobIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
