import { randomUUID } from 'node:crypto';
import type { Database } from '../db/open-database.js';

/**
 * Where a terminal status report's run record goes, with the normalized events the driver
 * relayed (JSON text lines, relay order). The runs area owns the real store; it answers the
 * id the job then carries as `recordId`.
 */
export interface RunRecordSink {
  store(jobId: string, record: Record<string, unknown>, events: string[]): { recordId: string };
}

/** Keeps each record and its events in `job_records`; the record's own `id` when it has one. */
export function sqliteRunRecordSink(db: Database): RunRecordSink {
  const upsert = db.prepare(
    `INSERT INTO job_records (id, job_id, record, events, stored_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET job_id = excluded.job_id, record = excluded.record, events = excluded.events, stored_at = excluded.stored_at`,
  );
  return {
    store(jobId, record, events) {
      const recordId = typeof record.id === 'string' && record.id.length > 0 ? record.id : randomUUID();
      upsert.run(recordId, jobId, JSON.stringify(record), `[${events.join(',')}]`, new Date().toISOString());
      return { recordId };
    },
  };
}
