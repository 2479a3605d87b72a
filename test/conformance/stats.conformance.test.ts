/**
 * Conformance: `GET /stats/providers` and `GET /stats/model-accuracy` over gg run records of
 * the kinds real runs produce, with the figures the original system's folds give on them
 * (TheClockwyrks/TheTestCabinet, crates/backend/src/stats.rs: `GgRunFacts::from_record`,
 * `fold_provider_stats`, `fold_model_accuracy`, `fold_error_groups`). Every expected number
 * below was worked out by hand from those functions; none is computed by our code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const ROOT = 'acme/root-coder';
const SUB = 'beta/sub-coder';

/** A gg record of `model` carrying `summary` as its `subject.ggSummary` (none when undefined). */
function gg(model: string, summary: Record<string, unknown> | undefined): Record<string, unknown> {
  const record = runRecord({ harness: 'gg', model });
  if (summary) (record.subject as Record<string, unknown>).ggSummary = summary;
  return record;
}

const tokens = (uncachedInput: number, output: number) => ({ uncachedInput, cachedInput: 0, output, reasoning: 0 });

/** R1: responses-as-code, two slot models, one slice per model and a modelless slice. */
const racSeveralModels = gg(ROOT, {
  executionMode: 'responses_as_code',
  slotCosts: [{ slot: 'primary', modelId: ROOT, tokens: tokens(0, 0) }, { slot: 'worker', modelId: SUB, tokens: tokens(0, 0) }],
  providerStats: [
    { provider: 'Together', modelId: ROOT, calls: 10, tokens: { uncachedInput: 100, cachedInput: 200, output: 30, reasoning: 0 },
      cost: { actual: 0.1, comparable: 0.5 }, rejected: 1, turns: 6, working: 4, errors: { transpile_compile: 1, model_timeout: 1 }, stalls: 1, cacheMisses: 0 },
    { provider: 'Fireworks', modelId: SUB, calls: 4, tokens: tokens(40, 10), cost: { actual: 0.05, comparable: 0.25 },
      rejected: 0, turns: 3, working: 1, errors: { program_api_error: 1, sandbox_timeout: 1 }, stalls: 0, cacheMisses: 0 },
    { provider: 'Together', modelId: null, calls: 2, tokens: tokens(10, 5), cost: { actual: 0.01 },
      rejected: 0, turns: 1, working: 0, errors: { missing_completion_no_program: 1 }, stalls: 0, cacheMisses: 0 },
  ],
  errors: { turns: 10, errors: 5, transpile: 1, programFault: 1, sandboxLimit: 1, modelApi: 1, missingCompletion: 1, byType: {} },
  toolCalls: 0,
});

/** R2: a single-model run whose only slice names no model. */
const modellessSlice = gg(ROOT, {
  executionMode: 'responses_as_code',
  providerStats: [
    { provider: 'Together', modelId: null, calls: 5, tokens: tokens(50, 20), cost: { actual: 0.2, comparable: 0.125 },
      rejected: 0, turns: 4, working: 3, errors: { model_parse: 1 }, stalls: 0, cacheMisses: 1 },
  ],
  errors: { turns: 4, errors: 1, transpile: 0, programFault: 0, sandboxLimit: 0, modelApi: 1, missingCompletion: 0, byType: { model_parse: 1 } },
  toolCalls: 0,
});

/** R3: a single-model run recorded before provider slices: the run-level rollup only. */
const singleModelNoSlices = gg(ROOT, {
  executionMode: 'responses_as_code',
  errors: {
    turns: 8, errors: 3, transpile: 1, programFault: 1, sandboxLimit: 0, modelApi: 0, missingCompletion: 1,
    byType: { transpile_syntax: 1, program_throw: 1, missing_completion_no_call: 1 },
  },
  toolCalls: 0,
});

/** R4: a two-model run recorded before provider slices: nobody's. */
const multiModelNoSlices = gg(ROOT, {
  executionMode: 'responses_as_code',
  slotCosts: [{ slot: 'primary', modelId: ROOT, tokens: tokens(0, 0) }, { slot: 'worker', modelId: SUB, tokens: tokens(0, 0) }],
  errors: { turns: 9, errors: 2, transpile: 2, programFault: 0, sandboxLimit: 0, modelApi: 0, missingCompletion: 0, byType: {} },
  toolCalls: 0,
});

/** R5: tool calling, its call failures under `errors.toolFailures`. */
const toolCallingWithFailures = gg(SUB, {
  executionMode: 'tool_calling',
  providerStats: [
    { provider: 'Fireworks', modelId: SUB, calls: 7, tokens: tokens(60, 20), cost: { actual: 0.5, comparable: 0.0625 },
      rejected: 0, turns: 7, working: 7, errors: {}, stalls: 0, cacheMisses: 0 },
  ],
  errors: { turns: 7, errors: 0, toolFailures: { invalid_arguments: 2, unknown_tool: 1 } },
  toolCalls: 20,
});

/** R6: tool calling with failures but `toolCalls: 0` (no total recorded), and an empty slice list. */
const toolCallsZero = gg(SUB, {
  executionMode: 'tool_calling',
  providerStats: [],
  errors: { turns: 3, errors: 0, toolFailures: { timeout: 4 } },
  toolCalls: 0,
});

/** R7: an older tool-calling record: no execution mode, failures at the top level. */
const olderToolCalling = gg(SUB, { toolCalls: 10, toolFailures: { invalid_arguments: 1 } });

/** R8: a gg run that died before its first turn: no summary. */
const withoutSummary = gg(ROOT, undefined);

let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;

beforeAll(async () => {
  backend = await startTestBackend({ RUN_WORKERS: 'false' });
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  for (const record of [racSeveralModels, modellessSlice, singleModelNoSlices, multiModelNoSlices, toolCallingWithFailures, toolCallsZero, olderToolCalling, withoutSummary]) {
    await seedRun(backend, record);
  }
});
afterAll(async () => {
  await backend?.close();
});

describe('GET /stats/providers, as the original folds it', () => {
  it('scans runs with a summary, counts runs with slices, and sums comparable cost', async () => {
    const response = await http.get('/stats/providers');
    expect(response.status).toBe(200);
    // Seven runs carry a summary (not R8); three carry a non-empty slice list (R1, R2, R5).
    expect(response.body.runsScanned).toBe(7);
    expect(response.body.runsWithProviderData).toBe(3);
  });

  it("gives a single-model run's modelless slice to its model and keeps a multi-model run's modelless", async () => {
    const { providers } = (await http.get('/stats/providers')).body;
    expect(providers).toEqual([
      {
        provider: 'Together',
        models: [
          {
            modelId: ROOT,
            stats: {
              runs: 2, calls: 15, totalTokens: 400, cost: 0.625, rejected: 1, turns: 10, working: 7,
              errors: { model_parse: 1, model_timeout: 1, transpile_compile: 1 }, stalls: 1, cacheMisses: 1,
            },
          },
          {
            modelId: null,
            stats: { runs: 1, calls: 2, totalTokens: 15, cost: null, rejected: 0, turns: 1, working: 0, errors: { missing_completion_no_program: 1 }, stalls: 0, cacheMisses: 0 },
          },
        ],
        totals: {
          runs: 2, calls: 17, totalTokens: 415, cost: 0.625, rejected: 1, turns: 11, working: 7,
          errors: { missing_completion_no_program: 1, model_parse: 1, model_timeout: 1, transpile_compile: 1 }, stalls: 1, cacheMisses: 1,
        },
      },
      {
        provider: 'Fireworks',
        models: [{
          modelId: SUB,
          stats: { runs: 2, calls: 11, totalTokens: 130, cost: 0.3125, rejected: 0, turns: 10, working: 8, errors: { program_api_error: 1, sandbox_timeout: 1 }, stalls: 0, cacheMisses: 0 },
        }],
        totals: { runs: 2, calls: 11, totalTokens: 130, cost: 0.3125, rejected: 0, turns: 10, working: 8, errors: { program_api_error: 1, sandbox_timeout: 1 }, stalls: 0, cacheMisses: 0 },
      },
    ]);
  });
});

describe('GET /stats/model-accuracy, as the original folds it', () => {
  it('folds responses-as-code per slice model, a slice-less single-model run approximately, and orders by turns + calls', async () => {
    const response = await http.get('/stats/model-accuracy');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      models: [
        {
          // Volume 3 turns + 30 calls.
          modelId: SUB,
          rac: { runs: 1, turns: 3, valid: 1, compile: 0, runtime: 2, modelErrors: 0, missing: 0, byType: { program_api_error: 1, sandbox_timeout: 1 }, approximateRuns: 0 },
          // R5 and R7 carry totals (20 + 10 calls, 3 + 1 failures); R6 has none and folds nothing.
          toolCalling: { runs: 2, calls: 30, ok: 26, failures: { invalid_arguments: 3, unknown_tool: 1 }, runsWithoutCallTotals: 1 },
        },
        {
          // Volume 18 turns: R1's slice (6), R2's modelless slice (4), R3's rollup (8).
          modelId: ROOT,
          rac: {
            runs: 3, turns: 18, valid: 12, compile: 2, runtime: 1, modelErrors: 2, missing: 1,
            byType: { missing_completion_no_call: 1, model_parse: 1, model_timeout: 1, program_throw: 1, transpile_compile: 1, transpile_syntax: 1 },
            approximateRuns: 1,
          },
          toolCalling: null,
        },
      ],
      // R4 only: a two-model run without slices.
      unattributableRuns: 1,
    });
  });
});
