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

interface ModeRow {
  model_id: string;
  execution_mode: 'responses_as_code' | 'tool_calling';
  runs: number;
  turns: number | null;
  approx_turns: number | null;
  approximate_runs: number;
  transpile: number | null;
  runtime: number | null;
  model_api: number | null;
  missing: number | null;
  tool_calls: number | null;
  without_call_totals: number;
}

/**
 * `GET /stats/model-accuracy`: per model, its responses-as-code turns split into valid,
 * compile, runtime, model errors and missing completions, and its tool-calling calls with
 * their failures, from the gg summaries lifted at store time. A half is null when the
 * model has no run of that mode. A run whose summary predates exact turn accounting counts
 * its provider slices' turns and is reported under `approximateRuns`.
 */
export function modelAccuracy(db: Database) {
  const modes = db.prepare<[], ModeRow>(
    `SELECT model_id, execution_mode, COUNT(*) AS runs,
            SUM(turns) AS turns, SUM(CASE WHEN turns IS NULL THEN slice_turns END) AS approx_turns,
            SUM(turns IS NULL AND slice_turns IS NOT NULL) AS approximate_runs,
            SUM(transpile) AS transpile, SUM(COALESCE(program_fault, 0) + COALESCE(sandbox_limit, 0)) AS runtime,
            SUM(model_api) AS model_api, SUM(missing_completion) AS missing,
            SUM(tool_calls) AS tool_calls, SUM(tool_calls IS NULL) AS without_call_totals
       FROM run_gg_stats WHERE execution_mode IS NOT NULL GROUP BY model_id, execution_mode`,
  );
  const byType = db.prepare<[], { model_id: string; execution_mode: string; type: string; n: number }>(
    `SELECT g.model_id, g.execution_mode, j.key AS type, SUM(j.value) AS n
       FROM run_gg_stats g, json_each(CASE g.execution_mode WHEN 'tool_calling' THEN g.tool_failures ELSE g.errors_by_type END) j
      WHERE g.execution_mode IS NOT NULL GROUP BY g.model_id, g.execution_mode, j.key`,
  );
  const unattributable = db.prepare<[], number>(
    `SELECT COUNT(*) FROM runs r LEFT JOIN run_gg_stats g ON g.run_id = r.id WHERE r.harness = 'gg' AND g.execution_mode IS NULL`,
  ).pluck();

  return () => {
    const types = new Map<string, Record<string, number>>();
    for (const row of byType.all()) {
      const k = `${row.model_id}\u0000${row.execution_mode}`;
      (types.get(k) ?? types.set(k, {}).get(k)!)[row.type] = row.n;
    }
    const models = new Map<string, { modelId: string; rac: RacHalf | null; toolCalling: ToolCallingHalf | null }>();
    for (const row of modes.all()) {
      const entry = models.get(row.model_id) ?? models.set(row.model_id, { modelId: row.model_id, rac: null, toolCalling: null }).get(row.model_id)!;
      const found = types.get(`${row.model_id}\u0000${row.execution_mode}`) ?? {};
      if (row.execution_mode === 'responses_as_code') {
        const turns = (row.turns ?? 0) + (row.approx_turns ?? 0);
        const compile = row.transpile ?? 0;
        const modelErrors = row.model_api ?? 0;
        const missing = row.missing ?? 0;
        const runtime = row.runtime ?? 0;
        entry.rac = {
          runs: row.runs, turns, valid: Math.max(0, turns - compile - runtime - modelErrors - missing),
          compile, runtime, modelErrors, missing, byType: found, approximateRuns: row.approximate_runs,
        };
      } else {
        const calls = row.tool_calls ?? 0;
        const failed = Object.values(found).reduce((sum, n) => sum + n, 0);
        entry.toolCalling = { runs: row.runs, calls, ok: Math.max(0, calls - failed), failures: found, runsWithoutCallTotals: row.without_call_totals };
      }
    }
    return { models: [...models.values()].sort((a, b) => a.modelId.localeCompare(b.modelId)), unattributableRuns: unattributable.get()! };
  };
}
