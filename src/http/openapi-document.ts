// The OpenAPI document and the /docs page, built on the first request to either (openapi.ts): a
// Fastify instance of its own with @fastify/swagger and @fastify/swagger-ui (and yaml, send,
// …: about 150 modules a start need not load) that is given every route the service
// registered, with the same schemas, shared schemas and router options, so it documents exactly
// what the service serves.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyServerOptions, type RouteOptions } from 'fastify';
import { version } from '../core/version.ts';
import { docsTheme } from './docs-theme.ts';
import { codeSamplesFor, type Operation, sampleRequest, samplesMarkdown } from './openapi-code-samples.ts';
import { ensureExample, resolverFor } from './openapi-examples.ts';
import { problemExample } from './openapi-problem-examples.ts';
import { problemResponses, problemStatusesOf, successResponses } from './openapi-problems.ts';
import { webhooksSection } from './openapi-webhooks.ts';

/**
 * A route that reads a file upload (multipart) itself, so its body has no schema to validate:
 * documented as multipart/form-data with the file part (an example file name) and its text fields.
 */
export type UploadDoc = { file: string; example: string; fields?: Record<string, string> };

declare module 'fastify' {
  interface FastifySchema {
    'x-upload'?: UploadDoc;
    /** The body as the document shows it, when the route validates a looser one (see features/delivery/schemas.ts). */
    'x-body'?: unknown;
  }
}

type DocumentedSchema = {
  querystring?: unknown;
  body?: unknown;
  tags?: string[];
  response?: Record<string, unknown>;
  security?: unknown;
  'x-upload'?: UploadDoc;
  'x-body'?: unknown;
};

/** The documented (never validated) multipart body of an upload route. */
const uploadBody = (upload: UploadDoc) => ({
  body: {
    type: 'object',
    required: ['file'],
    properties: {
      file: { type: 'string', format: 'binary', description: upload.file, examples: [upload.example] },
      ...Object.fromEntries(
        Object.entries(upload.fields ?? {}).map(([name, description]) => [
          name,
          { type: 'string', description },
        ]),
      ),
    },
  },
  consumes: ['multipart/form-data'],
});

/** True when the (TypeBox / JSON) schema declares a `user_id` property. */
const declaresUserId = (schema: unknown) =>
  typeof schema === 'object' &&
  schema !== null &&
  'properties' in schema &&
  typeof schema.properties === 'object' &&
  schema.properties !== null &&
  'user_id' in schema.properties;

type Media = { schema?: unknown; example?: unknown; examples?: unknown };

type Document = {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
  webhooks?: Record<string, unknown>;
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/**
 * What the route schemas alone do not give the document: an example on every request body and
 * success response, code samples on every operation, and the `webhooks` section. Run once per
 * document (the plugin caches the result).
 */
function completeDocument(document: Document, publicUrl: string): Document {
  const components = (document.components ??= {});
  const { webhooks, schemas } = webhooksSection(components.schemas ?? {});
  components.schemas = { ...components.schemas, ...schemas };
  const resolve = resolverFor(components.schemas);
  const schemes = (components.securitySchemes ?? {}) as Record<string, object>;
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      for (const media of Object.values(operation.requestBody?.content ?? {})) ensureExample(media, resolve);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        for (const media of Object.values(response.content ?? {})) ensureExample(media as object, resolve);
      }
      const request = sampleRequest(publicUrl, path, method, operation, components.schemas, schemes);
      // Every error response shows the problem body it is answered with, on this operation's path.
      const instance = new URL(request.url).pathname;
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!/^[45]\d\d$/.test(status)) continue;
        for (const [type, media] of Object.entries(response.content ?? {}) as [string, Media][]) {
          if (type !== 'application/problem+json') ensureExample(media, resolve);
          else if (!('example' in media) && media.examples === undefined)
            media.example = problemExample(publicUrl, Number(status), instance);
        }
      }
      const samples = codeSamplesFor(request);
      operation['x-codeSamples'] = samples;
      // Swagger UI (our /docs page) does not render x-codeSamples: the description carries them too.
      operation.description = [operation.description, samplesMarkdown(samples)].filter(Boolean).join('\n\n');
    }
  }
  return { ...document, webhooks };
}

/** What the service registered, for the document: its routes as registered and its shared schemas. */
export type DocumentedRoutes = {
  routes: readonly RouteOptions[];
  sharedSchemas: readonly unknown[];
  /** The service's own Fastify options that decide how routes are matched and schemas compiled. */
  options: Pick<FastifyServerOptions, 'routerOptions' | 'schemaController' | 'ajv'>;
};

/** The instance that answers /openapi.json and /docs: the service's routes, documented. */
export async function buildDocsApp({ routes, sharedSchemas, options }: DocumentedRoutes, publicUrl: string) {
  // Routes are given as the service registered them, its HEAD routes included.
  const app = Fastify({ ...options, exposeHeadRoutes: false, logger: false });
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
          uploadToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'Mobile uploads only: the upload_token /v2/sdk/connect answered with',
          },
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
      const { 'x-upload': upload, 'x-body': documentedBody, ...rest } = own;
      const documented = {
        ...rest,
        ...(upload ? uploadBody(upload) : {}),
        ...(documentedBody ? { body: documentedBody } : {}),
        response,
        ...(authenticated ? { security } : {}),
      };
      return { schema: documented as typeof schema, url };
    },
    transformObject: (documented) =>
      completeDocument(
        ('openapiObject' in documented ? documented.openapiObject : {}) as Document,
        publicUrl,
      ) as never,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, url: '/openapi.json' },
    ...docsTheme,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  for (const schema of sharedSchemas) app.addSchema(schema as { $id: string });
  // Only the schemas matter here: nothing answers through these handlers.
  const unused = async () => undefined;
  for (const { method, url, schema, config, constraints } of routes)
    app.route({ method, url, schema, config, ...(constraints ? { constraints } : {}), handler: unused });
  await app.ready();
  return app;
}
