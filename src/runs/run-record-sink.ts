import { unprocessable } from '../errors.js';
import { decodeRunRecord, recordModelId, RUN_RECORD_FORMAT, timestampProblem, type ListPrice } from './decode-run-record.js';
import type { RunGrades } from './run-grades.js';
import { refuseForeignJob } from './run-ownership.js';
import type { RunRows } from './run-rows.js';

export interface RunRecordsDeps {
  rows: RunRows;
  grades: RunGrades;
  listPriceOf(modelId: string): Promise<ListPrice | null>;
  /** A completed run's model gets a billed-rate observation; best effort. */
  onCompleted(modelId: string): Promise<unknown>;
  /** A re-pushed published run changes what the public snapshot shows. */
  onPublishedChanged(): Promise<unknown>;
  onError(error: unknown, context: string): void;
}

export interface StoredRecord {
  recordId: string;
  /** Null when this build could read the record. */
  decodeError: string | null;
  /** Settles once the run's grade is computed; never rejects. */
  graded: Promise<void>;
}

/**
 * Stores run records: the record whole, its lifted columns and events, stamped with the
 * record format it was decoded with. A record this build cannot read is stored too, under
 * its own id when it has one (else the job id), with the decode error. A run id another
 * job already stored is refused (409) and the stored run stays as it was.
 */
export function runRecords(deps: RunRecordsDeps) {
  async function store(jobId: string, record: Record<string, unknown>, events: string[]): Promise<StoredRecord> {
    const problem = timestampProblem(record);
    if (problem) throw unprocessable(problem);
    const listPrice = await deps.listPriceOf(recordModelId(record));
    const decoded = decodeRunRecord(record, () => listPrice);
    const recordId = decoded.lifted.id ?? jobId;
    const before = await deps.rows.listed(recordId);
    const stored = await deps.rows.store({
      id: recordId,
      jobId,
      record: JSON.stringify(record),
      recordFormat: RUN_RECORD_FORMAT,
      decodeError: decoded.ok ? null : decoded.error,
      events: eventsArray(events),
      lifted: decoded.lifted,
    });
    if (!stored) refuseForeignJob(recordId, (await deps.rows.owner(recordId))?.jobId ?? null, jobId, 'replace its record');
    const graded = (async () => {
      try {
        if (decoded.ok) await deps.grades.regradeById(recordId);
        if (before?.published === 1) await deps.onPublishedChanged();
      } catch (error) {
        deps.onError(error, `grading run ${recordId}`);
      }
    })();
    if (decoded.ok && decoded.lifted.state === 'completed') {
      deps.onCompleted(decoded.lifted.modelId).catch((error: unknown) => deps.onError(error, `observing the billed rate of ${decoded.lifted.modelId}`));
    }
    return { recordId, decodeError: decoded.ok ? null : decoded.error, graded };
  }
  return { store };
}

export type RunRecords = ReturnType<typeof runRecords>;

/** Joins event lines into one JSON array text, dropping lines that are not JSON (a relay fault, not the run's). */
function eventsArray(lines: string[]): string {
  const valid = lines.filter((line) => {
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  });
  return `[${valid.join(',')}]`;
}
