import type { BackendStore } from '../db/dialect.js';
import { storeMeta } from '../db/store-meta.js';
import { RESOLVED_RECORD_FORMAT } from './record-format.js';

export type StoreStatus = 'ready' | 'empty' | 'format-mismatch';

export interface StoreReadiness {
  /** Latches: once the store held readable versions, a re-ingest never withdraws readiness. */
  status(): Promise<StoreStatus>;
  isReady(): Promise<boolean>;
}

export function storeReadiness(store: BackendStore, recordFormat = RESOLVED_RECORD_FORMAT): StoreReadiness {
  const meta = storeMeta(store);
  let latched = false;

  async function status(): Promise<StoreStatus> {
    if (latched) return 'ready';
    const stamped = await meta.get('record_format');
    if (stamped !== null && Number(stamped) !== recordFormat) return 'format-mismatch';
    const readable = await store.db.selectFrom('test_case_versions').select('slug').where('record_format', '=', recordFormat).limit(1).executeTakeFirst();
    if (!readable) return 'empty';
    latched = true;
    return 'ready';
  }
  return { status, isReady: async () => (await status()) === 'ready' };
}
