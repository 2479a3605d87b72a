import type { Database } from '../db/open-database.js';
import { notFound } from '../errors.js';

/** A blank catalog form seeded from the model id (and harness) a stored run recorded. */
export function seedModelForm(db: Database, runId: string) {
  const run = db.prepare<[string], { model_id: string; harness: string }>('SELECT model_id, harness FROM runs WHERE id = ?').get(runId);
  if (!run) throw notFound(`No run ${runId}.`);
  return {
    slug: run.model_id,
    name: null,
    provider: null,
    description: null,
    aliases: [],
    providerPin: null,
    logo: null,
    listPriceInputPerMtok: null,
    listPriceCachedInputPerMtok: null,
    listPriceOutputPerMtok: null,
    listPriceAsOf: null,
    harness: run.harness,
  };
}
