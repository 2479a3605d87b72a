import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { catalogReader } from '../../../catalog/catalog-reader.js';
import { contentTypeFor } from '../../../catalog/content-type-for.js';
import { notFound } from '../../../errors.js';
import { priorReadmes } from '../../../runs/prior-readmes.js';
import { publicFileHeaders } from '../../../snapshot/serve-snapshot.js';
import { errorResponses } from '../../../contract/common.js';
import {
  ArtifactParams, BaselineParams, CatalogOut, EngineQuery, FileBytes, GroupsOut, PriorReadmesOut, PriorReadmesQuery, RenderedSpecsOut,
  ResolvedVersionOut, ScopedFileParams, SlugParams, ValidationFilesOut, VariantFileParams, VariantParams, VersionParams, VersionsOut,
} from '../../../contract/test-cases.js';

const VERSION = '/test-cases/:slug/versions/:version';

/** A catalog file, with the same headers as run media: typed by extension, never sniffed, documents sandboxed. */
async function sendFile(reply: FastifyReply, path: string) {
  const { size } = await stat(path);
  return reply.headers(publicFileHeaders({ size, contentType: contentTypeFor(path) })).send(createReadStream(path));
}

const testCaseRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const reader = catalogReader(app.catalog.index, app.catalog.versions, { includeExperimental: app.config.allowExperimental });
  const readmes = priorReadmes(app.store);
  const files = { response: { 200: FileBytes, ...errorResponses(404) } };

  app.get('/test-cases', { schema: { response: { 200: CatalogOut, ...errorResponses() } } }, async () => ({ testCases: await reader.catalog() }));

  app.get('/test-cases/:slug/versions', { schema: { params: SlugParams, response: { 200: VersionsOut, ...errorResponses(404) } } }, async (request) =>
    reader.versionsOf(request.params.slug));

  app.get(VERSION, { schema: { params: VersionParams, querystring: EngineQuery, response: { 200: ResolvedVersionOut, ...errorResponses(400, 404) } } }, async (request) =>
    reader.resolved(request.params.slug, request.params.version, request.query.engine));

  app.get(`${VERSION}/specs/:variant`, { schema: { params: VariantParams, querystring: EngineQuery, response: { 200: RenderedSpecsOut, ...errorResponses(400, 404) } } }, async (request) => {
    const { slug, version, variant } = request.params;
    return reader.specs(slug, version, variant, request.query.engine);
  });

  app.get(`${VERSION}/artifacts/*`, { schema: { params: ArtifactParams, ...files } }, async (request, reply) =>
    sendFile(reply, await reader.artifactPath(request.params.slug, request.params.version, request.params['*'])));

  app.get(`${VERSION}/references/:scope/:file`, { schema: { params: ScopedFileParams, ...files } }, async (request, reply) => {
    const { slug, version, scope, file } = request.params;
    return sendFile(reply, await reader.referencePath(slug, version, scope, file));
  });

  app.get(`${VERSION}/validation-files`, { schema: { params: VersionParams, response: { 200: ValidationFilesOut, ...errorResponses(404) } } }, async (request) =>
    reader.validationFiles(request.params.slug, request.params.version));

  app.get(`${VERSION}/validation-baseline/:engine/:variant/:file`, { schema: { params: BaselineParams, ...files } }, async (request, reply) => {
    const { slug, version, engine, variant, file } = request.params;
    return sendFile(reply, await reader.baselinePath(slug, version, engine, variant, file));
  });

  app.get(`${VERSION}/showcase/:variant/:file`, { schema: { params: VariantFileParams, ...files } }, async (request, reply) => {
    const { slug, version, variant, file } = request.params;
    return sendFile(reply, await reader.showcasePath(slug, version, variant, file));
  });

  app.get('/test-case-groups', { schema: { response: { 200: GroupsOut, ...errorResponses() } } }, async () => ({ groups: await reader.groups() }));

  app.get('/game-jams/:slug/prior-readmes', { schema: { params: SlugParams, querystring: PriorReadmesQuery, response: { 200: PriorReadmesOut, ...errorResponses(400, 404) } } }, async (request) => {
    const { slug } = request.params;
    if ((await app.catalog.index.versionsOf(slug)).length === 0) throw notFound(`No game jam ${slug}.`);
    return readmes(slug, request.query.model);
  });
};

export default testCaseRoutes;
