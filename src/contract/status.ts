import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';

const JobCountsByState = Type.Object({
  queued: Type.Integer(),
  pending: Type.Integer({ description: 'held back by a harness cap or a same-model game jam' }),
  dispatched: Type.Integer(),
  starting: Type.Integer(),
  running: Type.Integer(),
});

export const DeploymentStatus = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('empty'), Type.Literal('format-mismatch')], { description: 'what /readyz answers' }),
  storeReady: Type.Boolean(),
  version: Type.String({ description: 'contract version (semver)' }),
  catalog: Type.Object({
    versions: Type.Integer({ description: 'test case versions in the definition store' }),
    catalogVersion: Nullable(Type.String({ description: 'marker of the last whole-catalog ingest tagged with a token' })),
  }),
  jobs: JobCountsByState,
  harnesses: Type.Array(
    Type.Object({
      slug: Type.String(),
      maxParallelism: Nullable(Type.Integer({ description: 'in-flight runs allowed; null is uncapped' })),
      jobs: JobCountsByState,
    }),
  ),
  queues: Nullable(
    Type.Array(
      Type.Object({
        name: Type.String(),
        waiting: Type.Integer(),
        active: Type.Integer(),
        delayed: Type.Integer(),
        prioritized: Type.Integer(),
        completed: Type.Integer(),
        failed: Type.Integer(),
        paused: Type.Integer(),
      }),
      { description: 'BullMQ counts per queue; null when Redis did not answer in time' },
    ),
  ),
  workers: Nullable(
    Type.Array(
      Type.Object({
        queue: Type.String(),
        name: Type.String({ description: 'the worker connection name' }),
        addr: Type.String({ description: 'the worker connection as Redis sees it' }),
        idleSeconds: Type.Integer(),
      }),
      { description: 'background workers connected to each queue; null when Redis did not answer in time' },
    ),
  ),
  redisError: Nullable(Type.String({ description: 'why queues and workers are null' })),
});
