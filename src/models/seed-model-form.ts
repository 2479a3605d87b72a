import type { Database } from '../db/open-database.js';
import { notFound } from '../errors.js';
import { parseModelSlug } from './model-slug.js';

/** The run's model id when the routing provider could name it so (`author/name`), else null. */
function routingSlugOf(modelId: string): string | null {
  try {
    parseModelSlug(modelId);
    return modelId;
  } catch {
    return null;
  }
}

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
      // Empty rather than null: the console's form edits it as text.
      provider: '',
      description: null,
      aliases: [],
      openrouterSlug: routingSlugOf(run.model_id),
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
