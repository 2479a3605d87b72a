import type { Insertable, Kysely } from 'kysely';
import { chunked } from '../db/chunked.js';
import type { RunProviderSliceErrorsTable, RunProviderSlicesTable, StoreSchema } from '../db/store-schema.js';

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
 * is its comparable cost. `db` is the transaction the run row is written in; each table takes
 * one statement whatever the number of slices.
 */
export async function storeGgStats(db: Kysely<StoreSchema>, runId: string, harness: string, modelId: string, record: unknown): Promise<void> {
  for (const table of ['run_gg_stats', 'run_provider_slices', 'run_provider_slice_errors'] as const) {
    await db.deleteFrom(table).where('run_id', '=', runId).execute();
  }
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
  await db
    .insertInto('run_gg_stats')
    .values({
      run_id: runId,
      model_id: modelId,
      execution_mode: summary.executionMode === 'responses_as_code' ? 'responses_as_code' : 'tool_calling',
      has_provider_data: slices && slices.length > 0 ? 1 : 0,
      turns: count(errors?.turns),
      slice_turns: sliceTurns,
      transpile: count(errors?.transpile),
      program_fault: count(errors?.programFault),
      sandbox_limit: count(errors?.sandboxLimit),
      model_api: count(errors?.modelApi),
      missing_completion: count(errors?.missingCompletion),
      errors_by_type: errors?.byType === undefined ? null : JSON.stringify(counts(errors.byType) ?? {}),
      tool_calls: count(summary.toolCalls),
      tool_failures: toolFailuresOf(summary, errors),
      sole_model: sole,
      errors_total: count(errors?.errors),
    })
    .execute();
  const sliceRows: Insertable<RunProviderSlicesTable>[] = [];
  const errorRows: Insertable<RunProviderSliceErrorsTable>[] = [];
  const seenPairs = new Set<string>();
  const seenProviders = new Set<string | null>();
  for (const slice of slices ?? []) {
    const provider = text(slice.provider);
    const sliceModel = text(slice.modelId) ?? sole;
    const pair = JSON.stringify([provider, sliceModel]);
    const tokens = object(slice.tokens);
    const tokenParts = tokens ? ['uncachedInput', 'cachedInput', 'output', 'reasoning'].map((key) => count(tokens[key])) : [];
    const sliceErrors = counts(slice.errors) ?? {};
    sliceRows.push({
      run_id: runId,
      provider,
      model_id: sliceModel,
      calls: count(slice.calls),
      total_tokens: tokenParts.some((n) => n !== null) ? tokenParts.reduce<number>((sum, n) => sum + (n ?? 0), 0) : null,
      cost: amount(object(slice.cost)?.comparable),
      rejected: count(slice.rejected),
      turns: count(slice.turns),
      working: count(slice.working),
      stalls: count(slice.stalls),
      cache_misses: count(slice.cacheMisses),
      model_faults: slice.errors === undefined ? null : MODEL_FAULT_ERRORS.reduce((sum, id) => sum + (sliceErrors[id] ?? 0), 0),
      first_of_pair: seenPairs.has(pair) ? 0 : 1,
      first_of_provider: seenProviders.has(provider) ? 0 : 1,
    });
    seenPairs.add(pair);
    seenProviders.add(provider);
    for (const [type, n] of Object.entries(sliceErrors)) errorRows.push({ run_id: runId, provider, model_id: sliceModel, error_type: type, n });
  }
  for (const chunk of chunked(sliceRows)) await db.insertInto('run_provider_slices').values(chunk).execute();
  for (const chunk of chunked(errorRows)) await db.insertInto('run_provider_slice_errors').values(chunk).execute();
}
