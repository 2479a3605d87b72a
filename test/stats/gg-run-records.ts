import { runRecord, type RunRecordOptions } from '../helpers/run-record-builder.js';

export interface Slice {
  provider: string | null;
  modelId: string | null;
  calls?: number;
  tokens?: { uncachedInput: number; cachedInput: number; output: number; reasoning: number };
  cost?: { comparable: number; actual: number } | null;
  rejected?: number;
  turns?: number;
  working?: number;
  errors?: Record<string, number>;
  stalls?: number;
  cacheMisses?: number;
}

/** A gg run record whose subject carries a ggSummary (open-points, "Provider and accuracy statistics"). */
export function ggRunRecord(options: RunRecordOptions & { summary: Record<string, unknown> }): Record<string, unknown> {
  const record = runRecord({ harness: 'gg', ...options });
  (record.subject as Record<string, unknown>).ggSummary = options.summary;
  return record;
}

export function slice(provider: string | null, modelId: string | null, figures: Partial<Slice> = {}): Slice {
  return {
    provider, modelId, calls: 10, tokens: { uncachedInput: 100, cachedInput: 800, output: 50, reasoning: 10 },
    cost: { comparable: 0.02, actual: 0.01 }, rejected: 0, turns: 5, working: 4, errors: {}, stalls: 0, cacheMisses: 0, ...figures,
  };
}
