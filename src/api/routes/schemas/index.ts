import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../errors.js';
import { errorResponses } from '../../../contract/common.js';
import { publishedSchema, publishedSchemaNames } from '../../../contract/published.js';

const SchemaParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9-]+\\.schema\\.json$' }) });

const schemaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/schemas', {
    schema: { response: { 200: Type.Object({ schemas: Type.Array(Type.String({ description: 'path of one published schema' })) }), ...errorResponses() } },
  }, async () => ({ schemas: publishedSchemaNames().map((name) => `/schemas/${name}.schema.json`) }));

  app.get('/schemas/:name', {
    schema: {
      params: SchemaParams,
      response: { 200: Type.Unknown({ description: 'a JSON Schema document' }), ...errorResponses(400, 404) },
    },
  }, async (request, reply) => {
    const name = request.params.name.replace(/\.schema\.json$/, '');
    const schema = publishedSchema(name);
    if (!schema) throw notFound(`No published schema ${request.params.name}; GET /schemas lists them.`);
    return reply.type('application/schema+json; charset=utf-8').send(JSON.stringify(schema, null, 2));
  });
};

export default schemaRoutes;
