import type { Database } from '../db/open-database.js';

/** Turn error ids that count as a failed model call in the candidate fault rate. */
export const MODEL_FAULT_ERRORS = ['model_retry_exhausted', 'model_timeout', 'model_parse'] as const;

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null);
const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.trunc(value) : null);
const amount = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** `{ id: n }` with its non-negative integer counts; null when the record carried none. */
function counts(value: unknown): Record<string, number> | null {
  const map = object(value);
  if (!map) return null;
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(map)) {
    const c = count(n);
    if (c !== null) out[key] = c;
  }
  return out;
}

/** `toolFailures` as a map by failure type; a bare count is kept under `unspecified`. */
function failureCounts(value: unknown): Record<string, number> | null {
  const n = count(value);
  return n !== null ? { unspecified: n } : counts(value);
}

/**
 * The run's sole model: its `subject.modelId` when no slot of `slotCosts` names another, else
 * null. A slice that names no model belongs to it, and a run without slices is attributable
 * only through it (the original's `GgRunFacts::sole_model`).
 */
function soleModel(modelId: string, slotCosts: unknown): string | null {
  const slots = Array.isArray(slotCosts) ? slotCosts : [];
  return slots.every((slot) => { const id = text(object(slot)?.modelId); return id === null || id === modelId; }) ? modelId : null;
}

/** The call failures by class: `errors.toolFailures`, else an older record's top-level `toolFailures`. */
function toolFailuresOf(summary: Json, errors: Json | null): string | null {
  const value = errors?.toolFailures !== undefined ? errors.toolFailures : summary.toolFailures;
  return value === undefined ? null : JSON.stringify(failureCounts(value) ?? {});
}

/**
 * Lifts a gg run record's `subject.ggSummary` into `run_gg_stats` and its provider slices,
 * replacing what an earlier push of the same run lifted. Records of other harnesses, or
 * without a summary, leave nothing. As the original reads a summary: an absent execution
 * mode is tool calling, a slice without a model is the run's sole model's, and a slice's cost
 * is its comparable cost.
 */
export function ggStatsRows(db: Database) {
  const clear = [
    db.prepare<[string]>('DELETE FROM run_gg_stats WHERE run_id = ?'),
    db.prepare<[string]>('DELETE FROM run_provider_slices WHERE run_id = ?'),
    db.prepare<[string]>('DELETE FROM run_provider_slice_errors WHERE run_id = ?'),
  ];
  const insertRun = db.prepare(
    `INSERT INTO run_gg_stats (run_id, model_id, execution_mode, has_provider_data, turns, slice_turns, transpile, program_fault, sandbox_limit,
        model_api, missing_completion, errors_by_type, tool_calls, tool_failures, sole_model, errors_total)
     VALUES (@runId, @modelId, @executionMode, @hasProviderData, @turns, @sliceTurns, @transpile, @programFault, @sandboxLimit,
        @modelApi, @missingCompletion, @errorsByType, @toolCalls, @toolFailures, @soleModel, @errorsTotal)`,
  );
  const insertSlice = db.prepare(
    `INSERT INTO run_provider_slices (run_id, provider, model_id, calls, total_tokens, cost, rejected, turns, working, stalls, cache_misses,
        model_faults, first_of_pair, first_of_provider)
     VALUES (@runId, @provider, @modelId, @calls, @totalTokens, @cost, @rejected, @turns, @working, @stalls, @cacheMisses,
        @modelFaults, @firstOfPair, @firstOfProvider)`,
  );
  const insertError = db.prepare('INSERT INTO run_provider_slice_errors (run_id, provider, model_id, error_type, n) VALUES (?, ?, ?, ?, ?)');

  return {
    store(runId: string, harness: string, modelId: string, record: unknown): void {
      for (const statement of clear) statement.run(runId);
      if (harness !== 'gg') return;
      const summary = object(object(object(record)?.subject)?.ggSummary);
      if (!summary) return;
      const errors = object(summary.errors);
      const slices = Array.isArray(summary.providerStats) ? summary.providerStats.map(object).filter((s): s is Json => s !== null) : null;
      const sliceTurns = slices?.reduce<number | null>((sum, slice) => {
        const turns = count(slice.turns);
        return turns === null ? sum : (sum ?? 0) + turns;
      }, null) ?? null;
      const sole = soleModel(modelId, summary.slotCosts);
      insertRun.run({
        runId,
        modelId,
        executionMode: summary.executionMode === 'responses_as_code' ? 'responses_as_code' : 'tool_calling',
        hasProviderData: slices && slices.length > 0 ? 1 : 0,
        turns: count(errors?.turns),
        sliceTurns,
        transpile: count(errors?.transpile),
        programFault: count(errors?.programFault),
        sandboxLimit: count(errors?.sandboxLimit),
        modelApi: count(errors?.modelApi),
        missingCompletion: count(errors?.missingCompletion),
        errorsByType: errors?.byType === undefined ? null : JSON.stringify(counts(errors.byType) ?? {}),
        toolCalls: count(summary.toolCalls),
        toolFailures: toolFailuresOf(summary, errors),
        soleModel: sole,
        errorsTotal: count(errors?.errors),
      });
      const seenPairs = new Set<string>();
      const seenProviders = new Set<string | null>();
      for (const slice of slices ?? []) {
        const provider = text(slice.provider);
        const sliceModel = text(slice.modelId) ?? sole;
        const pair = JSON.stringify([provider, sliceModel]);
        const tokens = object(slice.tokens);
        const tokenParts = tokens ? ['uncachedInput', 'cachedInput', 'output', 'reasoning'].map((key) => count(tokens[key])) : [];
        const sliceErrors = counts(slice.errors) ?? {};
        insertSlice.run({
          runId,
          provider,
          modelId: sliceModel,
          calls: count(slice.calls),
          totalTokens: tokenParts.some((n) => n !== null) ? tokenParts.reduce<number>((sum, n) => sum + (n ?? 0), 0) : null,
          cost: amount(object(slice.cost)?.comparable),
          rejected: count(slice.rejected),
          turns: count(slice.turns),
          working: count(slice.working),
          stalls: count(slice.stalls),
          cacheMisses: count(slice.cacheMisses),
          modelFaults: slice.errors === undefined ? null : MODEL_FAULT_ERRORS.reduce((sum, id) => sum + (sliceErrors[id] ?? 0), 0),
          firstOfPair: seenPairs.has(pair) ? 0 : 1,
          firstOfProvider: seenProviders.has(provider) ? 0 : 1,
        });
        seenPairs.add(pair);
        seenProviders.add(provider);
        for (const [type, n] of Object.entries(sliceErrors)) insertError.run(runId, provider, sliceModel, type, n);
      }
    },
  };
}

export type GgStatsRows = ReturnType<typeof ggStatsRows>;
