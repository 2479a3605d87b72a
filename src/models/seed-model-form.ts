import type { BackendStore } from '../db/dialect.js';
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
 * stored run recorded.
 */
export function modelFormSeeder({ db }: BackendStore) {
  return async (runId: string) => {
    const run = await db.selectFrom('runs').select(['model_id', 'harness']).where('id', '=', runId).executeTakeFirst();
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
