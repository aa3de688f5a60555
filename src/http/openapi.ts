// /openapi.json and the /docs page. Their document is generated from the route schemas by
// @fastify/swagger and shown by @fastify/swagger-ui, which with their dependencies (yaml, send,
// …) are about 150 modules that a start would load for two pages that most processes never serve
// (issue 42). So a start only notes every route as it is registered; the first request to either
// page builds them (openapi-document.ts) from those routes, and every request to them is answered
// by that instance.
import type { FastifyReply, FastifyRequest, FastifyServerOptions, RouteOptions } from 'fastify';
import type { App } from './app-type.ts';
import type { buildDocsApp } from './openapi-document.ts';
import { ProblemSchema } from './openapi-problems.ts';

type DocsApp = Awaited<ReturnType<typeof buildDocsApp>>;

// Hop-by-hop or recomputed when this app sends the answer on.
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/**
 * OpenAPI 3.1 generated from the route schemas at /openapi.json, and an interactive page at /docs.
 * `options` are the app's own options that decide how its routes match and its schemas compile.
 */
export function registerOpenApi(
  app: App,
  publicUrl: string,
  options: Pick<FastifyServerOptions, 'routerOptions' | 'schemaController' | 'ajv'>,
) {
  app.addSchema(ProblemSchema);
  let docs: Promise<DocsApp> | undefined;
  const docsApp = () => {
    if (docs) return docs;
    const building = import('./openapi-document.ts').then((document) =>
      document.buildDocsApp({ routes, sharedSchemas: Object.values(app.getSchemas()), options }, publicUrl),
    );
    // A failed build is tried again by the next request rather than kept.
    building.catch(() => {
      if (docs === building) docs = undefined;
    });
    return (docs = building);
  };
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    const answered = await (
      await docsApp()
    ).inject({
      // HEAD is answered as GET, without its body, by this app.
      method: 'GET',
      url: request.url,
      headers: request.headers,
    });
    // A file the page does not have is this service's 404 (problem+json), as for any other path.
    if (answered.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(answered.headers))
      if (value !== undefined && !NOT_FORWARDED.has(name)) reply.header(name, value);
    reply.code(answered.statusCode);
    // A redirect has no body (and so no type to give one).
    return answered.rawPayload.length > 0 ? reply.send(answered.rawPayload) : reply.send();
  };
  const page = { schema: { hide: true }, config: { auth: 'none' as const } };
  // The paths @fastify/swagger-ui serves under /docs (its page, its files, the document), and no
  // others: any other path under /docs stays a plain 404.
  for (const path of ['/openapi.json', '/docs', '/docs/json', '/docs/yaml', '/docs/static/*'])
    app.get(path, page, answer);
  app.addHook('onClose', async () => {
    await (await docs?.catch(() => undefined))?.close();
  });

  // Every route registered from here on (all of the API's) goes into the document.
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route as RouteOptions);
  });
}
