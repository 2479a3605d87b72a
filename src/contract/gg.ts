import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';
import { NullableInteger } from './jobs.js';

const SlotModels = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ minLength: 1, maxLength: 300 }), {
  description: 'a model per agent (or older launch slot), keyed by its name; overrides the set\'s own bindings',
});
const CapabilitySet = Type.Object({}, {
  additionalProperties: true,
  description: 'gg capability set; { agents: [{ name, modelId, capabilities }] } binds its own models (root agent "root")',
});

export const GgConfigBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    capabilitySet: CapabilitySet,
    slotModels: Type.Optional(SlotModels),
  },
  { additionalProperties: false },
);
export type GgConfigBodyT = Static<typeof GgConfigBody>;

export const GgConfigOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  capabilitySet: CapabilitySet,
  slotModels: SlotModels,
});
export const GgConfigList = Type.Object({ configs: Type.Array(GgConfigOut) });
export const GgConfigParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const GgRunBody = Type.Object(
  {
    testCase: Type.String({ minLength: 1, maxLength: 200 }),
    version: Type.String({ minLength: 1, maxLength: 200 }),
    variant: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'default base' }))),
    engine: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    presetId: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'saved gg configuration of the account' }))),
    capabilitySet: Type.Optional(Nullable(CapabilitySet)),
    slotModels: Type.Optional(Nullable(SlotModels)),
    maxRuntimeSeconds: Type.Optional(NullableInteger({ minimum: 1, maximum: 7 * 24 * 3600 })),
    retryCount: Type.Optional(NullableInteger({ minimum: 0, maximum: 10 })),
  },
  { additionalProperties: false },
);
export type GgRunBodyT = Static<typeof GgRunBody>;
