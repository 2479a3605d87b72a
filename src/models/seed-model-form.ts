import type { Database } from '../db/open-database.js';
import { notFound } from '../errors.js';

/**
 * `GET /models/seed?runId=`: a blank catalog form seeded from the model id (and harness) a
 * stored run recorded. The lookup is prepared once, when the routes are built.
 */
export function modelFormSeeder(db: Database) {
  const runModel = db.prepare<[string], { model_id: string; harness: string }>('SELECT model_id, harness FROM runs WHERE id = ?');
  return (runId: string) => {
    const run = runModel.get(runId);
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
  };
}
