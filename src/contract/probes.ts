import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';

export const ModelPathParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });
export const ModelAuthorNameParams = Type.Object({
  author: Type.String({ minLength: 1, maxLength: 100 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
});
export const ProbeIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

// Bounds are checked by the handler, so a value out of range is a 422 that names them.
export const ProbeBody = Nullable(Type.Object({
  provider: Type.Optional(Nullable(Type.String({ maxLength: 200, description: 'pins every call to this provider, fallbacks off' }))),
  language: Type.Optional(Nullable(Type.String({ maxLength: 40, description: 'one program-language arm; absent: every arm' }))),
  samples: Type.Optional(Nullable(Type.Number({ description: 'calls per case, 1..128, default 8' }))),
  maxTokens: Type.Optional(Nullable(Type.Number({ description: 'completion cap per call, 256..16000, default 3500' }))),
}, { additionalProperties: false }));

export const ProbeOut = Type.Object({
  id: Type.String(),
  modelSlug: Type.String(),
  openrouterSlug: Type.String(),
  provider: Nullable(Type.String()),
  language: Nullable(Type.String()),
  samples: Type.Integer(),
  maxTokens: Type.Integer(),
  status: Type.Union([Type.Literal('running'), Type.Literal('complete'), Type.Literal('failed')]),
  error: Nullable(Type.String()),
  verdict: Nullable(Type.Union([Type.Literal('ready'), Type.Literal('not-ready')])),
  passRate: Nullable(Type.Number()),
  spend: Type.Number({ description: 'USD' }),
  callCount: Type.Integer({ description: 'calls planned: cases x samples' }),
  itemCount: Type.Integer({ description: 'calls landed so far' }),
  passCount: Type.Integer(),
  errorCount: Type.Integer({ description: 'calls voided by an error' }),
  createdAt: Type.String(),
  finishedAt: Nullable(Type.String()),
});

const ProbeItemOut = Type.Object({
  id: Type.Integer(),
  language: Type.String(),
  scenario: Type.String(),
  prompt: Type.String(),
  sample: Type.Integer(),
  provider: Nullable(Type.String()),
  finishReason: Nullable(Type.String()),
  nativeFinishReason: Nullable(Type.String()),
  label: Nullable(Type.String({ description: 'null when the call was void; error says why' })),
  pass: Type.Boolean(),
  programText: Nullable(Type.String()),
  responseText: Nullable(Type.String()),
  reasoningText: Nullable(Type.String()),
  promptTokens: Nullable(Type.Integer()),
  completionTokens: Nullable(Type.Integer()),
  cost: Nullable(Type.Number()),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
  createdAt: Type.String(),
});

const ProbeRequestOut = Type.Object({
  language: Type.String(),
  scenario: Type.String(),
  prompt: Type.String(),
  messages: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});

export const ProbeAck = Type.Object({ probe: ProbeOut });
export const ProbeList = Type.Object({ probes: Type.Array(ProbeOut) });
export const ProbeDetail = Type.Object({ probe: ProbeOut, items: Type.Array(ProbeItemOut), requests: Type.Array(ProbeRequestOut) });
export const ProbeProviders = Type.Object({
  openrouterSlug: Type.String(),
  providers: Type.Array(Type.Object({ name: Type.String(), contextLength: Nullable(Type.Integer()) })),
});
