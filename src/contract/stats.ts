import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';

const Counts = Type.Record(Type.String(), Type.Integer());

const SliceStats = Type.Object({
  runs: Type.Integer(),
  calls: Nullable(Type.Integer()),
  totalTokens: Nullable(Type.Integer()),
  cost: Nullable(Type.Number({ description: 'USD' })),
  rejected: Nullable(Type.Integer({ description: 'length-capped rejections' })),
  turns: Nullable(Type.Integer({ description: 'attributed turns' })),
  working: Nullable(Type.Integer({ description: 'turns that worked' })),
  errors: Counts,
  stalls: Nullable(Type.Integer()),
  cacheMisses: Nullable(Type.Integer({ description: 'unexpected cache misses' })),
});

export const ProviderStatsOut = Type.Object({
  runsScanned: Type.Integer(),
  runsWithProviderData: Type.Integer(),
  providers: Type.Array(Type.Object({
    provider: Nullable(Type.String()),
    models: Type.Array(Type.Object({ modelId: Nullable(Type.String()), stats: SliceStats })),
    totals: SliceStats,
  })),
  probes: Type.Array(Type.Object({
    provider: Nullable(Type.String()),
    models: Type.Array(Type.Object({ modelSlug: Type.String(), items: Type.Integer(), passes: Type.Integer(), errored: Type.Integer() })),
  })),
});

export const ModelAccuracyOut = Type.Object({
  models: Type.Array(Type.Object({
    modelId: Type.String(),
    rac: Nullable(Type.Object({
      runs: Type.Integer(),
      turns: Type.Integer(),
      valid: Type.Integer(),
      compile: Type.Integer(),
      runtime: Type.Integer(),
      modelErrors: Type.Integer(),
      missing: Type.Integer(),
      byType: Counts,
      approximateRuns: Type.Integer({ description: 'runs whose turns come from their provider slices' }),
    })),
    toolCalling: Nullable(Type.Object({
      runs: Type.Integer(),
      calls: Type.Integer(),
      ok: Type.Integer(),
      failures: Counts,
      runsWithoutCallTotals: Type.Integer(),
    })),
  })),
  unattributableRuns: Type.Integer({ description: 'gg runs whose summary names no execution mode' }),
});

export const CandidatesOut = Type.Object({
  modelId: Type.String(),
  nativeQuantization: Nullable(Type.String()),
  candidates: Type.Array(Type.Object({
    provider: Type.String(),
    quantization: Type.String({ description: 'trimmed and lower-cased; `unknown` when the endpoint declares none' }),
    developer: Type.Boolean(),
    inputPrice: Type.Number({ description: 'USD per Mtok' }),
    outputPrice: Type.Number({ description: 'USD per Mtok' }),
    cacheReadPrice: Type.Number({ description: 'USD per Mtok' }),
    faultRate: Nullable(Type.Number()),
  })),
  refusal: Nullable(Type.String()),
});
