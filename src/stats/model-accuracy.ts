import { sql } from 'kysely';
import { jsonCounts, type BackendStore } from '../db/dialect.js';

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

const RAC = 'responses_as_code';
const TOOL = 'tool_calling';

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
export function modelAccuracy({ engine, db }: BackendStore) {
  const gg = db.selectFrom('run_gg_stats as g');
  /** A run's failed calls, summed over its failure classes. */
  const failed = db.selectFrom(jsonCounts(engine, sql.ref('g.tool_failures')).as('f')).select(sql<number>`COALESCE(SUM(f.value), 0)`.as('n'));
  /** The run recorded at least one failure class (the original's non-empty `tool_failures`). */
  const hasFailures = sql<boolean>`(g.tool_failures IS NOT NULL AND g.tool_failures <> '{}')`;
  const racRollup = gg.where('g.execution_mode', '=', RAC).where('g.has_provider_data', '=', 0).where('g.sole_model', 'is not', null);
  const toolTotals = gg.where('g.execution_mode', '=', TOOL).where('g.sole_model', 'is not', null).where('g.tool_calls', '>', 0);
  const soleModel = sql.ref<string>('g.sole_model').as('model_id');

  const racSlices = db.selectFrom('run_provider_slices as s').innerJoin('run_gg_stats as g', 'g.run_id', 's.run_id')
    .where('g.execution_mode', '=', RAC).where('g.has_provider_data', '=', 1).where('s.model_id', 'is not', null)
    .groupBy('s.model_id')
    .select((eb) => [
      sql.ref<string>('s.model_id').as('model_id'), eb.fn.count<number>('s.run_id').distinct().as('runs'),
      eb.fn.sum<number | null>('s.turns').as('turns'), eb.fn.sum<number | null>('s.working').as('valid'),
    ]);
  const racSliceTypes = db.selectFrom('run_provider_slice_errors as e').innerJoin('run_gg_stats as g', 'g.run_id', 'e.run_id')
    .where('g.execution_mode', '=', RAC).where('g.has_provider_data', '=', 1).where('e.model_id', 'is not', null)
    .groupBy(['e.model_id', 'e.error_type'])
    .select((eb) => [sql.ref<string>('e.model_id').as('model_id'), 'e.error_type as type', eb.fn.sum<number>('e.n').as('n')]);
  const racRollups = racRollup.groupBy('g.sole_model')
    .select((eb) => [
      soleModel, eb.fn.countAll<number>().as('runs'), eb.fn.sum<number | null>('g.turns').as('turns'),
      sql<number | null>`SUM(CASE WHEN COALESCE(g.turns, 0) > COALESCE(g.errors_total, 0) THEN COALESCE(g.turns, 0) - COALESCE(g.errors_total, 0) ELSE 0 END)`.as('valid'),
      eb.fn.sum<number | null>('g.transpile').as('compile'),
      sql<number | null>`SUM(COALESCE(g.program_fault, 0) + COALESCE(g.sandbox_limit, 0))`.as('runtime'),
      eb.fn.sum<number | null>('g.model_api').as('model_errors'), eb.fn.sum<number | null>('g.missing_completion').as('missing'),
    ]);
  const racRollupTypes = racRollup.innerJoin(jsonCounts(engine, sql.ref('g.errors_by_type')).as('j'), (join) => join.onTrue())
    .groupBy(['g.sole_model', 'j.key'])
    .select((eb) => [soleModel, 'j.key as type', eb.fn.sum<number>('j.value').as('n')]);
  const tool = toolTotals.groupBy('g.sole_model')
    .select((eb) => [
      soleModel, eb.fn.countAll<number>().as('runs'), eb.fn.sum<number | null>('g.tool_calls').as('calls'),
      sql<number | null>`SUM(CASE WHEN g.tool_calls > (${failed}) THEN g.tool_calls - (${failed}) ELSE 0 END)`.as('ok'),
    ]);
  const toolFailures = toolTotals.innerJoin(jsonCounts(engine, sql.ref('g.tool_failures')).as('j'), (join) => join.onTrue())
    .groupBy(['g.sole_model', 'j.key'])
    .select((eb) => [soleModel, 'j.key as type', eb.fn.sum<number>('j.value').as('n')]);
  const withoutTotals = gg.where('g.execution_mode', '=', TOOL).where('g.sole_model', 'is not', null)
    .where(sql<boolean>`COALESCE(g.tool_calls, 0) = 0`).where(hasFailures)
    .groupBy('g.sole_model')
    .select((eb) => [soleModel, eb.fn.countAll<number>().as('runs')]);
  const unattributable = gg.select((eb) => eb.fn.countAll<number>().as('n')).where((eb) => eb.or([
    eb.and([eb('g.execution_mode', '=', RAC), eb('g.has_provider_data', '=', 0), eb('g.sole_model', 'is', null)]),
    eb.and([
      eb('g.execution_mode', '=', RAC), eb('g.has_provider_data', '=', 1),
      eb.not(eb.exists(eb.selectFrom('run_provider_slices as s').select(sql.lit(1).as('one')).whereRef('s.run_id', '=', 'g.run_id').where('s.model_id', 'is not', null))),
    ]),
    eb.and([eb('g.execution_mode', '=', TOOL), eb('g.sole_model', 'is', null), eb.or([eb('g.tool_calls', '>', 0), hasFailures])]),
  ]));

  return async () => {
    const [racSliceRows, racSliceTypeRows, racRollupRows, racRollupTypeRows, toolRows, toolFailureRows, withoutTotalsRows, { n: unattributableRuns }] = await Promise.all([
      racSlices.execute(), racSliceTypes.execute(), racRollups.execute(), racRollupTypes.execute(),
      tool.execute(), toolFailures.execute(), withoutTotals.execute(), unattributable.executeTakeFirstOrThrow(),
    ]);
    const models = new Map<string, { modelId: string; rac: RacHalf; tool: ToolCallingHalf }>();
    const entry = (modelId: string) => models.get(modelId) ?? models.set(modelId, {
      modelId,
      rac: { runs: 0, turns: 0, valid: 0, compile: 0, runtime: 0, modelErrors: 0, missing: 0, byType: {}, approximateRuns: 0 },
      tool: { runs: 0, calls: 0, ok: 0, failures: {}, runsWithoutCallTotals: 0 },
    }).get(modelId)!;

    for (const [rows, approximate] of [[racSliceRows, false], [racRollupRows, true]] as Array<[RacRow[], boolean]>) {
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
    for (const row of racSliceTypeRows) {
      const { rac } = entry(row.model_id);
      rac.byType[row.type] = (rac.byType[row.type] ?? 0) + row.n;
      const group = GROUP_OF[row.type];
      if (group) rac[group] += row.n;
    }
    for (const row of racRollupTypeRows) {
      const { rac } = entry(row.model_id);
      rac.byType[row.type] = (rac.byType[row.type] ?? 0) + row.n;
    }
    for (const row of toolRows) {
      const half = entry(row.model_id).tool;
      half.runs += row.runs;
      half.calls += row.calls ?? 0;
      half.ok += row.ok ?? 0;
    }
    for (const row of toolFailureRows) entry(row.model_id).tool.failures[row.type] = row.n;
    for (const row of withoutTotalsRows) entry(row.model_id).tool.runsWithoutCallTotals += row.runs;

    const volume = (m: { rac: RacHalf | null; toolCalling: ToolCallingHalf | null }) => (m.rac?.turns ?? 0) + (m.toolCalling?.calls ?? 0);
    const out = [...models.values()].map(({ modelId, rac, tool: toolCalling }) => ({
      modelId,
      rac: rac.turns > 0 || rac.runs > 0 ? { ...rac, byType: sortedKeys(rac.byType) } : null,
      toolCalling: toolCalling.calls > 0 || toolCalling.runsWithoutCallTotals > 0 ? { ...toolCalling, failures: sortedKeys(toolCalling.failures) } : null,
    }));
    out.sort((a, b) => volume(b) - volume(a) || (a.modelId < b.modelId ? -1 : a.modelId > b.modelId ? 1 : 0));
    return { models: out, unattributableRuns };
  };
}

/** A count map with its keys in code-point order, as the original's maps serialize. */
function sortedKeys(map: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
