import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';
import { NullableInteger } from './jobs.js';

export const HarnessConfigEntry = Type.Object({
  slug: Type.String(),
  name: Type.String({ description: 'display name' }),
  maxParallelism: Nullable(Type.Integer({ minimum: 1, description: 'in-flight runs allowed; null is uncapped' })),
});
export const HarnessConfigList = Type.Object({ harnesses: Type.Array(HarnessConfigEntry) });
export const HarnessConfigBody = Type.Object(
  { maxParallelism: NullableInteger({ minimum: 1, maximum: 10_000, description: 'in-flight runs allowed; null removes the cap' }) },
  { additionalProperties: false },
);
export const HarnessParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
