import { Type } from '@sinclair/typebox';

export const StreamParams = Type.Object({ stream: Type.String({ minLength: 1, maxLength: 100 }) });

export const StreamTopicsBody = Type.Object(
  {
    notifications: Type.Optional(Type.Boolean({ description: 'run finished / publish failed alerts (default on)' })),
    runs: Type.Optional(Type.Boolean({ description: 'every in-flight list transition (default off)' })),
  },
  { additionalProperties: false },
);
