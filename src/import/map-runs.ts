import { decodeRunRecord, RUN_RECORD_FORMAT, timestampProblem, type LiftedRun, type ListPrice } from '../runs/decode-run-record.js';
import { normalizeRunState } from '../runs/run-states.js';
import type { StoredRun } from '../runs/run-rows.js';
import { flag, parseJson, text, utcColumn } from './source-values.js';
import type { SourceRow } from './source-db.js';

/** A source `run` row as it is written here: the stored run, then its publication. */
export interface MappedRun {
  stored: StoredRun;
  published: boolean;
  publishedAt: string | null;
  /** The links the run ends with: the release's (`run_link`) over the record's. */
  sourceRepo: string | null;
  playableBuild: string | null;
  notes: string[];
}

/**
 * Maps one original run: the record and events verbatim, everything lifted by our own
 * decoder (so every derived column is ours), and, for a record the decoder refuses, the
 * identity the original's own columns hold, so the run is kept unreadable with its reason.
 * `hasPublished` is false for the earliest form of migration #1, whose every run was published.
 */
export function mapRun(
  row: SourceRow,
  link: SourceRow | undefined,
  jobId: string | null,
  listPrice: ListPrice | null,
  hasPublished: boolean,
): MappedRun {
  const id = text(row.id)!;
  const notes: string[] = [];
  const recordText = text(row.record_json) ?? '';
  const record = parseJson(recordText);
  let decodeError: string | null;
  let lifted: LiftedRun;
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    decodeError = `The original's record_json is not a JSON object${record === undefined ? ' (it does not parse)' : ''}.`;
    lifted = decodeRunRecord({}).lifted;
  } else {
    const json = record as Record<string, unknown>;
    const decoded = decodeRunRecord(json, () => listPrice);
    lifted = decoded.lifted;
    decodeError = decoded.ok ? timestampProblem(json) : decoded.error;
    if (lifted.id !== null && lifted.id !== id) notes.push(`run ${id}: its record names id ${lifted.id}; imported under ${id}`);
  }
  if (decodeError !== null) fillFromColumns(lifted, row);
  if (row.record_readable !== undefined && flag(row.record_readable) !== (decodeError === null)) {
    notes.push(`run ${id}: the original marked it ${flag(row.record_readable) ? 'readable' : 'unreadable'}, this build reads it ${decodeError === null ? 'readable' : 'unreadable'}`);
  }
  const events = eventsOf(row.events_json, id, notes);
  const published = hasPublished ? flag(row.published) : true;
  const publishedAt = published ? (utcColumn(row.published_at) ?? lifted.finishedAt ?? utcColumn(row.finished_at)) : null;
  return {
    stored: { id, jobId, record: recordText, recordFormat: RUN_RECORD_FORMAT, decodeError, events, lifted },
    published,
    publishedAt,
    sourceRepo: text(link?.source_repo) ?? lifted.sourceRepo,
    playableBuild: text(link?.playable_build) ?? lifted.playableBuild,
    notes,
  };
}

/** Events as the JSON array text we keep: NULL is none; text that is not a JSON array is dropped, and said so. */
function eventsOf(value: unknown, id: string, notes: string[]): string {
  const raw = text(value);
  if (raw === null) return '[]';
  if (Array.isArray(parseJson(raw))) return raw;
  notes.push(`run ${id}: events_json is not a JSON array and was not kept: ${JSON.stringify(raw.slice(0, 120))}`);
  return '[]';
}

/** What an unreadable record could not give, from the original's lifted columns. */
function fillFromColumns(lifted: LiftedRun, row: SourceRow): void {
  lifted.id ??= text(row.id);
  if (!lifted.testCaseSlug) lifted.testCaseSlug = text(row.test_case_slug) ?? '';
  if (!lifted.testCaseVersion) lifted.testCaseVersion = text(row.test_case_version) ?? '';
  if (!lifted.variant) lifted.variant = text(row.variant) ?? '';
  if (!lifted.harness) lifted.harness = text(row.harness_slug) ?? '';
  if (!lifted.modelId) lifted.modelId = text(row.model_id) ?? '';
  if (!lifted.state) lifted.state = normalizeRunState(row.run_state) ?? text(row.run_state) ?? '';
  lifted.startedAt ??= utcColumn(row.started_at);
  lifted.finishedAt ??= utcColumn(row.finished_at);
  if (lifted.engine === 'none' && text(row.engine_slug)) lifted.engine = text(row.engine_slug)!;
}

/** The columns the mapped-rows digest covers, in order: what the mapping decides about a run. */
export const RUN_DIGEST_COLUMNS = [
  'id', 'job_id', 'decode_error', 'state', 'started_at', 'finished_at', 'test_case_slug', 'test_case_version', 'variant', 'harness',
  'model_id', 'engine', 'published', 'published_at', 'link_source_repo', 'link_playable_build',
] as const;

/** The verbatim columns: byte for byte the original's text. */
export const RUN_VERBATIM_COLUMNS = ['id', 'record', 'events'] as const;

export function runDigestValues(mapped: MappedRun): unknown[] {
  const { stored, published } = mapped;
  const { lifted } = stored;
  return [
    stored.id, stored.jobId, stored.decodeError, lifted.state, lifted.startedAt, lifted.finishedAt, lifted.testCaseSlug, lifted.testCaseVersion,
    lifted.variant, lifted.harness, lifted.modelId, lifted.engine, published ? 1 : 0, mapped.publishedAt, mapped.sourceRepo, mapped.playableBuild,
  ];
}
