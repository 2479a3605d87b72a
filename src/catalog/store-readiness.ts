import type { Database } from '../db/open-database.js';
import { storeMeta } from '../db/store-meta.js';
import { RESOLVED_RECORD_FORMAT } from './record-format.js';

export type StoreStatus = 'ready' | 'empty' | 'format-mismatch';

export interface StoreReadiness {
  /** Latches: once the store held readable versions, a re-ingest never withdraws readiness. */
  status(): StoreStatus;
  isReady(): boolean;
}

export function storeReadiness(db: Database, recordFormat = RESOLVED_RECORD_FORMAT): StoreReadiness {
  const meta = storeMeta(db);
  const readableVersions = db
    .prepare<[number], number>('SELECT EXISTS (SELECT 1 FROM test_case_versions WHERE record_format = ?)')
    .pluck();
  let latched = false;

  function status(): StoreStatus {
    if (latched) return 'ready';
    const stamped = meta.get('record_format');
    if (stamped !== null && Number(stamped) !== recordFormat) return 'format-mismatch';
    if (readableVersions.get(recordFormat) !== 1) return 'empty';
    latched = true;
    return 'ready';
  }
  return { status, isReady: () => status() === 'ready' };
}
