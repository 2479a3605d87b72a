import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound, unprocessable } from '../../../errors.js';
import { ggCandidates } from '../../../models/gg-candidates.js';
import { routingIdOf, type ModelEntry } from '../../../models/model-entry.js';
import { providerFaultRates } from '../../../stats/provider-fault-rates.js';
import { CandidatesOut } from '../../../contract/stats.js';
import { parseModelSlug } from '../../../models/model-slug.js';
import { errorResponses } from '../../../contract/common.js';
import { ModelAuthorNameParams, ModelPathParams, ProbeAck, ProbeBody, ProbeDetail, ProbeIdParams, ProbeList, ProbeProviders } from '../../../contract/probes.js';
import { modelPaths, modelSlugOf } from './model-paths.js';

const AnyModelParams = Type.Union([ModelPathParams, ModelAuthorNameParams]);

/** Model probes: trigger (token), history and detail (open), the providers a probe may pin and the gg candidates (token). */
const probeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { probes, models, router } = app;
  const faultRates = providerFaultRates(app.store);

  /** The entry (404 when the catalog has none) and the id the routing provider knows it by (422 when it has none). */
  async function routedModel(slug: string): Promise<{ entry: ModelEntry; routingId: string }> {
    const entry = await models.get(slug);
    if (!entry) throw notFound(`The model catalog has no entry ${slug}.`);
    const routingId = routingIdOf(entry);
    try {
      parseModelSlug(routingId);
    } catch {
      throw unprocessable(`The model ${slug} has no routing-provider id: its slug is not author/name and its entry sets no openrouterSlug.`);
    }
    return { entry, routingId };
  }

  for (const url of modelPaths('candidates')) {
    app.get(url, {
      config: { auth: 'account' },
      schema: { params: AnyModelParams, response: { 200: CandidatesOut, ...errorResponses(400, 401, 404, 422, 502, 503) } },
    }, async (request) => {
      const slug = modelSlugOf(request.params);
      const { entry, routingId } = await routedModel(slug);
      const listing = await router.getEndpoints(routingId);
      if (!listing) throw notFound(`The routing provider does not list the model ${routingId}.`);
      // The ids the model's runs are recorded under, as the original gathers them (`CatalogCandidates::of`).
      const recordedIds = [routingId, slug, ...entry.aliases.map((alias) => alias.slug)].map((id) => id.trim()).filter((id) => id !== '');
      return ggCandidates(routingId, entry, listing.endpoints, await faultRates(recordedIds));
    });
  }

  for (const url of modelPaths('probes')) {
    app.post(url, {
      config: { auth: 'account' },
      schema: { params: AnyModelParams, body: ProbeBody, response: { 202: ProbeAck, ...errorResponses(400, 401, 404, 409, 422, 502, 503) } },
    }, async (request, reply) => {
      const probe = await probes.trigger(modelSlugOf(request.params), request.body ?? {});
      return reply.code(202).send({ probe });
    });

    app.get(url, { schema: { params: AnyModelParams, response: { 200: ProbeList, ...errorResponses(400) } } }, async (request) =>
      ({ probes: await probes.store.ofModel(modelSlugOf(request.params)) }));
  }

  app.get('/model-probes/:id', { schema: { params: ProbeIdParams, response: { 200: ProbeDetail, ...errorResponses(400, 404) } } }, async (request) => {
    const probe = await probes.store.get(request.params.id);
    if (!probe) throw notFound(`No model probe ${request.params.id}.`);
    const [items, requests] = await Promise.all([probes.store.items(probe.id), probes.store.requests(probe.id)]);
    return { probe, items, requests };
  });

  for (const url of modelPaths('probe-providers')) {
    app.get(url, {
      config: { auth: 'account' },
      schema: { params: AnyModelParams, response: { 200: ProbeProviders, ...errorResponses(400, 401, 404, 422, 502, 503) } },
    }, async (request) => {
      const { routingId } = await routedModel(modelSlugOf(request.params));
      return { openrouterSlug: routingId, providers: await router.probeProviders(routingId) };
    });
  }
};

export default probeRoutes;
