import type { Database } from '../db/open-database.js';

export interface RacHalf {
  runs: number;
  turns: number;
  valid: number;
  compile: number;
  runtime: number;
  modelErrors: number;
  missing: number;
  byType: Record<string, number>;
  approximateRuns: number;
}

export interface ToolCallingHalf {
  runs: number;
  calls: number;
  ok: number;
  failures: Record<string, number>;
  runsWithoutCallTotals: number;
}

type RacGroup = 'compile' | 'runtime' | 'modelErrors' | 'missing';

/**
 * The named group each turn error type of a slice falls in, as gg's taxonomy kinds them
 * (transpile; program fault and sandbox limit; model API; missing completion). A type not
 * listed reaches `byType` only, as the original's `fold_error_groups` treats a type it does
 * not know.
 */
const GROUP_OF: Readonly<Record<string, RacGroup>> = {
  model_auth: 'modelErrors', model_rejected: 'modelErrors', model_retry_exhausted: 'modelErrors', model_response_loop: 'modelErrors',
  model_vision_unsupported: 'modelErrors', model_parse: 'modelErrors', model_timeout: 'modelErrors', model_length_capped: 'modelErrors',
  transpile_syntax: 'compile', transpile_compile: 'compile', transpile_unsupported: 'compile',
  program_api_error: 'runtime', program_unknown_name: 'runtime', program_throw: 'runtime',
  sandbox_timeout: 'runtime', sandbox_out_of_memory: 'runtime', sandbox_trap: 'runtime',
  missing_completion_no_call: 'missing', missing_completion_compaction: 'missing', missing_completion_no_program: 'missing',
};

interface RacRow {
  model_id: string;
  runs: number;
  turns: number | null;
  valid: number | null;
  /** The run-level rollup's named groups; a slice's come from its errors by type. */
  compile?: number | null;
  runtime?: number | null;
  model_errors?: number | null;
  missing?: number | null;
}

interface ToolRow {
  model_id: string;
  runs: number;
  calls: number | null;
  ok: number | null;
}

type TypeRow = { model_id: string; type: string; n: number };

const RAC = "g.execution_mode = 'responses_as_code'";
const TOOL = "g.execution_mode = 'tool_calling'";
/** A run's failed calls, summed over its failure classes. */
const FAILED = '(SELECT COALESCE(SUM(f.value), 0) FROM json_each(g.tool_failures) f)';
/** The run recorded at least one failure class (the original's non-empty `tool_failures`). */
const HAS_FAILURES = "(g.tool_failures IS NOT NULL AND g.tool_failures <> '{}')";

/**
 * `GET /stats/model-accuracy`: per model, its responses-as-code turns split into valid,
 * compile, runtime, model errors and missing completions, and its tool-calling calls with
 * their failures, from the gg summaries lifted at store time — folded as the original system
 * folds them (its `fold_model_accuracy`):
 *
 * - Responses as code, per provider slice's model (a slice naming none is the run's sole
 *   model's): turns, `valid` the slice's working turns, its errors regrouped by kind. A run
 *   without slices counts for its sole model from its run-level rollup (`valid` = turns −
 *   errors) under `approximateRuns`; with several models, or with slices none of which
 *   resolves to a model, it is `unattributableRuns`.
 * - Tool calling, from the run-level totals of a run with a sole model. `toolCalls: 0` is an
 *   unrecorded total: a run with failures but no total counts in `runsWithoutCallTotals` and
 *   folds nothing.
 *
 * A half is null when the model has no evidence of that mode. Models are ordered by turns +
 * calls, most first, then by id.
 */
export function modelAccuracy(db: Database) {
  const racSlices = db.prepare<[], RacRow>(
    `SELECT s.model_id, COUNT(DISTINCT s.run_id) AS runs, SUM(s.turns) AS turns, SUM(s.working) AS valid
       FROM run_provider_slices s JOIN run_gg_stats g ON g.run_id = s.run_id
      WHERE ${RAC} AND g.has_provider_data = 1 AND s.model_id IS NOT NULL GROUP BY s.model_id`,
  );
  const racSliceTypes = db.prepare<[], TypeRow>(
    `SELECT e.model_id, e.error_type AS type, SUM(e.n) AS n
       FROM run_provider_slice_errors e JOIN run_gg_stats g ON g.run_id = e.run_id
      WHERE ${RAC} AND g.has_provider_data = 1 AND e.model_id IS NOT NULL GROUP BY e.model_id, e.error_type`,
  );
  const racRollups = db.prepare<[], RacRow>(
    `SELECT g.sole_model AS model_id, COUNT(*) AS runs, SUM(g.turns) AS turns, SUM(MAX(COALESCE(g.turns, 0) - COALESCE(g.errors_total, 0), 0)) AS valid,
            SUM(g.transpile) AS compile, SUM(COALESCE(g.program_fault, 0) + COALESCE(g.sandbox_limit, 0)) AS runtime,
            SUM(g.model_api) AS model_errors, SUM(g.missing_completion) AS missing
       FROM run_gg_stats g WHERE ${RAC} AND g.has_provider_data = 0 AND g.sole_model IS NOT NULL GROUP BY g.sole_model`,
  );
  const racRollupTypes = db.prepare<[], TypeRow>(
    `SELECT g.sole_model AS model_id, j.key AS type, SUM(j.value) AS n
       FROM run_gg_stats g, json_each(g.errors_by_type) j
      WHERE ${RAC} AND g.has_provider_data = 0 AND g.sole_model IS NOT NULL GROUP BY g.sole_model, j.key`,
  );
  const tool = db.prepare<[], ToolRow>(
    `SELECT g.sole_model AS model_id, COUNT(*) AS runs, SUM(g.tool_calls) AS calls, SUM(MAX(g.tool_calls - ${FAILED}, 0)) AS ok
       FROM run_gg_stats g WHERE ${TOOL} AND g.sole_model IS NOT NULL AND g.tool_calls > 0 GROUP BY g.sole_model`,
  );
  const toolFailures = db.prepare<[], TypeRow>(
    `SELECT g.sole_model AS model_id, j.key AS type, SUM(j.value) AS n
       FROM run_gg_stats g, json_each(g.tool_failures) j
      WHERE ${TOOL} AND g.sole_model IS NOT NULL AND g.tool_calls > 0 GROUP BY g.sole_model, j.key`,
  );
  const withoutTotals = db.prepare<[], { model_id: string; runs: number }>(
    `SELECT g.sole_model AS model_id, COUNT(*) AS runs FROM run_gg_stats g
      WHERE ${TOOL} AND g.sole_model IS NOT NULL AND COALESCE(g.tool_calls, 0) = 0 AND ${HAS_FAILURES} GROUP BY g.sole_model`,
  );
  const unattributable = db.prepare<[], number>(
    `SELECT COUNT(*) FROM run_gg_stats g
      WHERE (${RAC} AND g.has_provider_data = 0 AND g.sole_model IS NULL)
         OR (${RAC} AND g.has_provider_data = 1
             AND NOT EXISTS (SELECT 1 FROM run_provider_slices s WHERE s.run_id = g.run_id AND s.model_id IS NOT NULL))
         OR (${TOOL} AND g.sole_model IS NULL AND (g.tool_calls > 0 OR ${HAS_FAILURES}))`,
  ).pluck();

  return () => {
    const models = new Map<string, { modelId: string; rac: RacHalf; tool: ToolCallingHalf }>();
    const entry = (modelId: string) => models.get(modelId) ?? models.set(modelId, {
      modelId,
      rac: { runs: 0, turns: 0, valid: 0, compile: 0, runtime: 0, modelErrors: 0, missing: 0, byType: {}, approximateRuns: 0 },
      tool: { runs: 0, calls: 0, ok: 0, failures: {}, runsWithoutCallTotals: 0 },
    }).get(modelId)!;

    for (const [rows, approximate] of [[racSlices.all(), false], [racRollups.all(), true]] as const) {
      for (const row of rows) {
        const { rac } = entry(row.model_id);
        rac.runs += row.runs;
        rac.turns += row.turns ?? 0;
        rac.valid += row.valid ?? 0;
        rac.compile += row.compile ?? 0;
        rac.runtime += row.runtime ?? 0;
        rac.modelErrors += row.model_errors ?? 0;
        rac.missing += row.missing ?? 0;
        if (approximate) rac.approximateRuns += row.runs;
      }
    }
    for (const row of racSliceTypes.all()) {
      const { rac } = entry(row.model_id);
      rac.byType[row.type] = (rac.byType[row.type] ?? 0) + row.n;
      const group = GROUP_OF[row.type];
      if (group) rac[group] += row.n;
    }
    for (const row of racRollupTypes.all()) {
      const { rac } = entry(row.model_id);
      rac.byType[row.type] = (rac.byType[row.type] ?? 0) + row.n;
    }
    for (const row of tool.all()) {
      const half = entry(row.model_id).tool;
      half.runs += row.runs;
      half.calls += row.calls ?? 0;
      half.ok += row.ok ?? 0;
    }
    for (const row of toolFailures.all()) entry(row.model_id).tool.failures[row.type] = row.n;
    for (const row of withoutTotals.all()) entry(row.model_id).tool.runsWithoutCallTotals += row.runs;

    const volume = (m: { rac: RacHalf | null; toolCalling: ToolCallingHalf | null }) => (m.rac?.turns ?? 0) + (m.toolCalling?.calls ?? 0);
    const out = [...models.values()].map(({ modelId, rac, tool: toolCalling }) => ({
      modelId,
      rac: rac.turns > 0 || rac.runs > 0 ? { ...rac, byType: sortedKeys(rac.byType) } : null,
      toolCalling: toolCalling.calls > 0 || toolCalling.runsWithoutCallTotals > 0 ? { ...toolCalling, failures: sortedKeys(toolCalling.failures) } : null,
    }));
    out.sort((a, b) => volume(b) - volume(a) || (a.modelId < b.modelId ? -1 : a.modelId > b.modelId ? 1 : 0));
    return { models: out, unattributableRuns: unattributable.get()! };
  };
}

/** A count map with its keys in code-point order, as the original's maps serialize. */
function sortedKeys(map: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
