import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound, unprocessable } from '../../../errors.js';
import { routingIdOf } from '../../../models/model-entry.js';
import { parseModelSlug } from '../../../models/model-slug.js';
import { errorResponses } from '../../schemas/common.js';
import { ModelAuthorNameParams, ModelPathParams, ProbeAck, ProbeBody, ProbeDetail, ProbeIdParams, ProbeList, ProbeProviders } from '../../schemas/probes.js';
import { modelPaths, modelSlugOf } from './model-paths.js';

const AnyModelParams = Type.Union([ModelPathParams, ModelAuthorNameParams]);

/** Model probes: trigger (token), history and detail (open), and the providers a probe may pin (token). */
const probeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { probes, models, router } = app;

  for (const url of modelPaths('probes')) {
    app.post(url, {
      config: { auth: 'account' },
      schema: { params: AnyModelParams, body: ProbeBody, response: { 202: ProbeAck, ...errorResponses(400, 401, 404, 409, 422, 502, 503) } },
    }, async (request, reply) => {
      const probe = await probes.trigger(modelSlugOf(request.params), request.body ?? {});
      return reply.code(202).send({ probe });
    });

    app.get(url, { schema: { params: AnyModelParams, response: { 200: ProbeList, ...errorResponses(400) } } }, async (request) =>
      ({ probes: probes.store.ofModel(modelSlugOf(request.params)) }));
  }

  app.get('/model-probes/:id', { schema: { params: ProbeIdParams, response: { 200: ProbeDetail, ...errorResponses(400, 404) } } }, async (request) => {
    const probe = probes.store.get(request.params.id);
    if (!probe) throw notFound(`No model probe ${request.params.id}.`);
    return { probe, items: probes.store.items(probe.id), requests: probes.store.requests(probe.id) };
  });

  for (const url of modelPaths('probe-providers')) {
    app.get(url, {
      config: { auth: 'account' },
      schema: { params: AnyModelParams, response: { 200: ProbeProviders, ...errorResponses(400, 401, 404, 422, 502, 503) } },
    }, async (request) => {
      const slug = modelSlugOf(request.params);
      const entry = models.get(slug);
      const openrouterSlug = entry ? routingIdOf(entry) : slug;
      try {
        parseModelSlug(openrouterSlug);
      } catch {
        throw unprocessable(`The model ${slug} has no routing-provider id: its slug is not author/name and its entry sets no openrouterSlug.`);
      }
      return { openrouterSlug, providers: await router.probeProviders(openrouterSlug) };
    });
  }
};

export default probeRoutes;
