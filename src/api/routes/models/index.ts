import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { badRequest, notFound, unprocessable } from '../../../errors.js';
import { fetchLogo } from '../../../models/fetch-logo.js';
import { logoSvgAt, logoSvgOfWrite } from '../../../models/logo-svg-write.js';
import type { ModelEntry, ModelWrite } from '../../../models/model-entry.js';
import { modelEntryWire } from '../../../models/model-wire.js';
import { observeIfMissing } from '../../../models/observe-billed-rate.js';
import { modelFormSeeder } from '../../../models/seed-model-form.js';
import { errorResponses } from '../../../contract/common.js';
import {
  LogoBody, LogoOut, ModelCreateBody, ModelEntryOut, ModelList, ModelUpdateBody, RouterListingOut, RouterQuery, SeedForm, SeedQuery,
  SlugWildcardParams,
} from '../../../contract/models.js';

/** Model ids contain a slash: `PUT /models/anthropic/claude-x` and `/models/anthropic%2Fclaude-x` name the same entry. */
const modelRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { models, router } = app;
  const seedModelForm = modelFormSeeder(app.store);
  const observeOnSave = (slug: string) =>
    void observeIfMissing(models, router, slug, (error) => app.log.warn({ err: error, slug }, 'billed-rate observation on save failed'));

  const wire = (entry: ModelEntry) => modelEntryWire(entry, app.config.routerBaseUrl);
  /** The body with its logo markup sanitized (or fetched from providerLogoUrl), before anything is stored. */
  const withLogoSvg = async <T extends Partial<ModelWrite>>(body: T): Promise<T> =>
    ({ ...body, logoSvg: await logoSvgOfWrite(body, app.config.logoBaseUrl) });

  app.get('/models', { schema: { response: { 200: ModelList, ...errorResponses() } } }, async () => ({ models: (await models.list()).map(wire) }));

  // The catalog is the deployment's (it admits or refuses every launch): writes are operator actions.
  app.post('/models', {
    config: { auth: 'operator' },
    schema: { body: ModelCreateBody, response: { 201: ModelEntryOut, ...errorResponses(400, 401, 403, 404, 409, 422, 502) } },
  }, async (request, reply) => {
    const entry = await models.create(await withLogoSvg(request.body));
    observeOnSave(entry.slug);
    return reply.code(201).send(wire(entry));
  });

  app.get('/models/seed', { schema: { querystring: SeedQuery, response: { 200: SeedForm, ...errorResponses(400, 404) } } }, async (request) =>
    seedModelForm(request.query.runId));

  app.get('/models/router', {
    config: { auth: 'account' },
    schema: { querystring: RouterQuery, response: { 200: RouterListingOut, ...errorResponses(400, 401, 404, 502, 503) } },
  }, async (request) => {
    const { slug, name, provider, description, inputPerMtok, cachedInputPerMtok, outputPerMtok } = await router.lookupListing(request.query.slug);
    return { slug, name, provider, description, inputPerMtok, cachedInputPerMtok, outputPerMtok };
  });

  app.post('/models/logo', {
    config: { auth: 'account' },
    schema: { body: LogoBody, response: { 200: LogoOut, ...errorResponses(400, 401, 404, 422, 502) } },
  }, async (request) => {
    const baseUrl = app.config.logoBaseUrl;
    if (!baseUrl) throw unprocessable('Logo fetching is off on this deployment: LOGO_BASE_URL is not configured.');
    const { name, url } = request.body;
    if ((name === undefined) === (url === undefined)) throw badRequest('body must carry either name (a logo in the library) or url (its full URL in the library), not both.');
    if (url !== undefined) return { logoSvg: await logoSvgAt(url, baseUrl, 'url', badRequest) };
    const logo = await fetchLogo({ baseUrl, name: name! });
    return { logo: `data:image/png;base64,${logo.png.toString('base64')}`, width: logo.width, height: logo.height, sourceUrl: logo.sourceUrl };
  });

  app.put('/models/*', {
    config: { auth: 'operator' },
    schema: { params: SlugWildcardParams, body: ModelUpdateBody, response: { 200: ModelEntryOut, ...errorResponses(400, 401, 403, 404, 409, 422, 502) } },
  }, async (request) => {
    const entry = await models.update(request.params['*'], await withLogoSvg(request.body));
    observeOnSave(entry.slug);
    return wire(entry);
  });

  app.delete('/models/*', {
    config: { auth: 'operator' },
    schema: {
      params: SlugWildcardParams,
      response: { 200: Type.Object({ slug: Type.String(), deleted: Type.Literal(true) }), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => {
    const slug = request.params['*'];
    await models.remove(slug);
    return { slug, deleted: true as const };
  });
};

export default modelRoutes;
