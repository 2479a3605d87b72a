import { recordedGgModels } from '../jobs/bind-gg-models.js';
import type { SourceShape } from './detect-generation.js';
import type { KeyedRow, KeyedTable } from './write-keyed.js';
import { UNATTRIBUTED } from './map-reviews.js';
import { parseJson, text, utcColumn } from './source-values.js';
import type { SourceRow } from './source-db.js';
import type { RequeueCheck } from './requeue-waiting.js';

const IN_FLIGHT_RUNNING = new Set(['dispatched', 'starting', 'running']);
const IN_FLIGHT_WAITING = new Set(['queued', 'pending']);
const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

/** D2: a job in flight in the original is imported terminal (its driver reports to the original, never to us). */
export const IN_FLIGHT_DETAIL = 'In flight in the original system when it was imported; launch it again.';
export const PUBLISH_IN_FLIGHT_DETAIL = 'In flight in the original system when it was imported; publish again.';

const object = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/**
 * `job` → `jobs` (keyed insert; `seq` numbered by our store after its own rows). With
 * `requeue` (`--requeue-waiting`) a waiting job that passes it is written `queued`, unfinished,
 * and our next boot queues it; without it, or failing it, the job is imported canceled (D2).
 */
export function jobsTable(shape: SourceShape, requeue: RequeueCheck | null = null): KeyedTable {
  return {
    source: 'job',
    // In the original's queue order, so our seq numbers them alike (after the store's own rows).
    sourceKey: shape.has('job', 'queue_seq') ? ['queue_seq', 'created_at', 'id'] : ['created_at', 'id'],
    target: 'jobs',
    targetKey: 'id',
    digest: [
      'id', 'account_id', 'origin', 'test_case_slug', 'test_case_version', 'variant', 'harness_slug', 'model_id', 'provider', 'engine', 'test_type',
      'gg_config_id', 'gg_preset', 'gg_models', 'state', 'record_id', 'detail', 'enqueued_at', 'started_at', 'finished_at',
    ],
    verbatim: ['id', 'request'],
    map: (row) => mapJob(row, shape, requeue),
  };
}

async function mapJob(row: SourceRow, shape: SourceShape, requeue: RequeueCheck | null): Promise<KeyedRow> {
  const id = text(row.id)!;
  const state = text(row.state) ?? '';
  const request = object(parseJson(row.request_json));
  const notes: string[] = [];
  const harness = text(row.harness_slug) ?? '';
  const ggSet = parseJson(row.gg_config_json) ?? request.ggCapabilitySet;
  const accountId = text(row.user_id) ?? UNATTRIBUTED;
  if (accountId === UNATTRIBUTED) notes.push(`job ${id}: no account (before job.user_id), imported as ${UNATTRIBUTED}`);
  let mapped: string;
  let detail = text(row.detail);
  let waiting = false;
  if (TERMINAL.has(state)) mapped = state;
  else if (IN_FLIGHT_WAITING.has(state) && requeue) {
    // A gg request takes its capability set from the column the original lifted it into.
    const body = harness === 'gg' && request.ggCapabilitySet === undefined && ggSet !== null ? { ...request, ggCapabilitySet: ggSet } : request;
    const refusal = await requeue(accountId, body);
    if (refusal === null) {
      mapped = 'queued';
      detail = null;
      waiting = true;
      notes.push(`job ${id}: ${state} in the original, queued again here (--requeue-waiting)`);
    } else {
      mapped = 'canceled';
      detail = IN_FLIGHT_DETAIL;
      notes.push(`job ${id}: ${state} in the original, imported canceled, not queued again: ${refusal}`);
    }
  } else if (IN_FLIGHT_RUNNING.has(state) || IN_FLIGHT_WAITING.has(state)) {
    mapped = IN_FLIGHT_RUNNING.has(state) ? 'failed' : 'canceled';
    detail = IN_FLIGHT_DETAIL;
    notes.push(`job ${id}: ${state} in the original, imported ${mapped}`);
  } else return { id, refused: `state ${JSON.stringify(state)} is not a job state of the original` };
  let testType = text(row.test_type) || text(request.testType) || '';
  if (!testType) {
    testType = 'end-to-end';
    notes.push(`job ${id}: no test type recorded, imported as end-to-end`);
  }
  const origin = text(row.origin);
  // The same stamp on every rerun: the original's own last update, not the import's time.
  const updatedAt = utcColumn(row.updated_at);
  return {
    id,
    note: notes.length > 0 ? notes.join('; ') : undefined,
    values: {
      id,
      account_id: accountId,
      origin: origin === null ? null : origin.split('/')[0]!,
      test_case_slug: text(row.test_case_slug) ?? '',
      test_case_version: text(row.test_case_version) || text(request.testCaseVersion) || '',
      variant: text(row.variant) ?? '',
      harness_slug: harness,
      model_id: text(row.model_id) ?? '',
      provider: text(request.provider),
      engine: shape.has('job', 'engine_slug') ? text(row.engine_slug) : null,
      test_type: testType,
      gg_config_id: text(row.gg_config_id)?.replace(/^saved:/, '') ?? null,
      gg_preset: text(row.gg_preset),
      gg_models: harness === 'gg' ? recordedGgModels(ggSet) : null,
      request: text(row.request_json) ?? '{}',
      state: mapped,
      token_hash: null,
      record_id: text(row.record_id),
      detail,
      enqueued_at: utcColumn(row.created_at) ?? updatedAt ?? '',
      dispatched_at: null,
      started_at: utcColumn(row.started_at),
      // A job queued again is in flight: nothing has finished it.
      finished_at: waiting ? null : updatedAt,
    },
  };
}

/** `publish_job` → `publish_jobs`, after runs (a foreign key): in-flight ones end failed. */
export function publishJobsTable(runImported: (id: string) => Promise<boolean>): KeyedTable {
  return {
    source: 'publish_job',
    sourceKey: ['id'],
    target: 'publish_jobs',
    targetKey: 'id',
    digest: ['id', 'run_id', 'state', 'detail', 'source_repo', 'playable_build', 'created_ms', 'updated_at'],
    verbatim: [],
    async map(row) {
      const id = text(row.id)!;
      const runId = text(row.run_id) ?? '';
      if (!(await runImported(runId))) return { id, refused: `its run ${runId} is not in the store (never imported, or refused)` };
      const state = text(row.state) ?? '';
      const inFlight = state === 'queued' || state === 'dispatched';
      if (!inFlight && state !== 'succeeded' && state !== 'failed') return { id, refused: `state ${JSON.stringify(state)} is not a publish job state of the original` };
      const createdAt = text(row.created_at) ?? '';
      return {
        id,
        note: inFlight ? `publish job ${id}: ${state} in the original, imported failed` : undefined,
        values: {
          id,
          run_id: runId,
          state: inFlight ? 'failed' : state,
          detail: inFlight ? PUBLISH_IN_FLIGHT_DETAIL : text(row.detail),
          source_repo: text(row.source_repo),
          playable_build: text(row.playable_build),
          created_ms: Date.parse(createdAt) || 0,
          updated_at: utcColumn(row.updated_at) ?? '',
        },
      };
    },
  };
}
