import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { version } from '../core/version.ts';
import type { App } from './app-type.ts';
import { docsTheme } from './docs-theme.ts';
import { problemResponses, problemStatusesOf, ProblemSchema, successResponses } from './openapi-problems.ts';

type DocumentedSchema = {
  querystring?: unknown;
  body?: unknown;
  tags?: string[];
  response?: Record<string, unknown>;
};

/** True when the (TypeBox / JSON) schema declares a `user_id` property. */
const declaresUserId = (schema: unknown) =>
  typeof schema === 'object' &&
  schema !== null &&
  'properties' in schema &&
  typeof schema.properties === 'object' &&
  schema.properties !== null &&
  'user_id' in schema.properties;

/** OpenAPI 3.1 generated from the route schemas, and an interactive page at /docs. */
export async function registerOpenApi(app: App, publicUrl: string) {
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    // Shared schemas (the data model) appear under their own names, not def-0, def-1, ….
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) =>
        typeof json.$id === 'string' ? json.$id : `def-${index}`,
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tributary API',
        version,
        description:
          'Health data aggregation: connect wearable accounts, read one normalized data model, receive signed webhooks; ' +
          'and a lab-test order API. Errors are RFC 7807 application/problem+json.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          devId: { type: 'apiKey', in: 'header', name: 'dev-id' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          basic: { type: 'http', scheme: 'basic', description: 'Order API only: base64(dev-id:api-key)' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const auth = route.config?.auth;
      const authenticated = auth !== undefined && auth !== 'none';
      const own = (schema ?? {}) as DocumentedSchema;
      const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
      // Every route lists its error responses (one shared Problem schema); its own entries win.
      const statuses = problemStatusesOf({
        method,
        url,
        authenticated,
        hasParams: url.includes(':'),
        namesUser: declaresUserId(own.querystring) || declaresUserId(own.body),
        tags: own.tags ?? [],
      });
      const response = {
        ...(own.response ? {} : successResponses(method, url)),
        ...problemResponses(statuses),
        ...own.response,
      };
      const security: Record<string, string[]>[] = [{ devId: [], apiKey: [] }];
      if (auth === 'developer-or-basic') security.push({ basic: [] });
      const documented = { ...own, response, ...(authenticated ? { security } : {}) };
      return { schema: documented as typeof schema, url };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, url: '/openapi.json' },
    ...docsTheme,
  });
  app.get('/openapi.json', { schema: { hide: true } as object, config: { auth: 'none' } }, async () =>
    app.swagger(),
  );
}
