import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CONTRACT_VERSION } from '../../contract-version.js';
import type { AuthRequirement } from './authenticate.js';
import { DASHBOARD_PATH } from './queue-dashboard.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered, as method and URL pattern (HEAD routes Fastify adds included). */
    registeredRoutes: ReadonlyArray<{ method: string; url: string; hidden: boolean }>;
  }
}

/** Routes outside our API: the queue dashboard is a third-party UI with its own internal API. */
const undocumented = (url: string) => url.startsWith(DASHBOARD_PATH);

/** How each `config.auth` requirement is presented: all are bearer tokens, told apart by name. */
const SECURITY: Record<AuthRequirement, string> = { account: 'accountToken', operator: 'accountToken', service: 'serviceToken', job: 'jobToken', 'job-header': 'jobToken' };

/**
 * The OpenAPI 3.1 document of every route, built by @fastify/swagger from the same TypeBox
 * schemas the routes validate with, served at `GET /openapi.json`, with a reference page at
 * `GET /docs`. Registered before the routes, whose definitions it collects as they are added.
 */
async function openapi(app: FastifyInstance) {
  const routes: Array<{ method: string; url: string; hidden: boolean }> = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (route) => {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true || undocumented(route.url);
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, hidden });
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'eval-backend',
        description: 'Central backend of a model-evaluation system. Every failure answers `{ error: { code, message } }`.',
        version: CONTRACT_VERSION,
      },
      components: {
        securitySchemes: {
          accountToken: { type: 'http', scheme: 'bearer', description: 'an account token from the auth service (POST /auth/login)' },
          serviceToken: { type: 'http', scheme: 'bearer', description: "the deployment's SERVICE_TOKEN, presented by dispatchers" },
          jobToken: { type: 'http', scheme: 'bearer', description: 'the per-job token minted when the job was claimed' },
        },
      },
    },
    // Shared schemas ($id'd, such as the error envelope) become components named by their $id.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => {
      if (undocumented(url)) return { schema: { hide: true } as never, url };
      const auth = route.config?.auth;
      const transformed = { ...(schema ?? {}) } as Record<string, unknown>;
      if (auth) transformed.security = [{ [SECURITY[auth]]: [] }];
      // Grouped on the reference page by area: the path's first segment.
      transformed.tags ??= [url.split('/')[1] || 'service'];
      return { schema: transformed as never, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapi, { name: 'openapi', fastify: '5.x' });
