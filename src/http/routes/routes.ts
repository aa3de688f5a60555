// GPS routes (the vendor's Routes API: `/routes`, `/pushedRoutes`). Thin: the routes service
// decides. Answers are written with JSON.stringify (schemas document them).
import Type from 'typebox';
import type { AppContext } from '../../features/context.ts';
import {
  MAX_WAYPOINTS,
  type RouteTemplate as Template,
  type RouteUpdate as Update,
} from '../../model/route.ts';
import type { App } from '../app-type.ts';
import {
  CascadeAccepted,
  CascadeQuery,
  PushedRoute,
  PushedRouteParams,
  RouteCreated,
  RouteParams,
  RoutePushed,
  RouteTemplate,
  RouteUpdate,
  StoredRoute,
  Success,
  UserQuery,
} from '../../features/routes/schemas.ts';

const tags = ['routes'];
const config = { auth: 'developer' as const };
/** The documented 10,000 waypoints exceed the input boundary's default array bound. */
const bodyConfig = { ...config, maxArrayItems: MAX_WAYPOINTS };
const plainJson = () => (data: unknown) => JSON.stringify(data);
/** 10,000 waypoints with elevation and course points fit; the default 1 MiB may not. */
const ROUTE_BODY_LIMIT = 4 * 1024 * 1024;
/** The push's note in the API reference, naming the providers whose declarations have a route API. */
function providerNote(ctx: AppContext): string {
  const apis = ctx.providers
    .list()
    .flatMap(({ declaration, connector }) =>
      connector?.routes ? [`${declaration.name} ${connector.routes.apiName}`] : [],
    );
  return (
    `Pushed through the provider’s course/route API (${apis.join(', ')}); a provider without ` +
    'one, or a user who did not grant its permission: 400 naming user_id. The provider refusing: 424 with Retry-After.'
  );
}

export function registerRoutesRoutes(app: App, ctx: AppContext) {
  const routes = ctx.routes;
  // Cascades run in the background: the server closes only once they are done (the store after).
  app.addHook('onClose', async () => routes.idle());

  app.post(
    '/v2/routes',
    {
      config: bodyConfig,
      bodyLimit: ROUTE_BODY_LIMIT,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Store a GPS route template (pushed to users with /routes/{route_id}/push)',
        body: RouteTemplate,
        response: { 201: RouteCreated },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await routes.create(request.developer, request.body as Template)),
  );

  app.get(
    '/v2/routes',
    {
      config,
      serializerCompiler: plainJson,
      schema: { tags, summary: 'Your route templates', response: { 200: Type.Array(StoredRoute) } },
    },
    async (request) => routes.list(request.developer),
  );

  app.get(
    '/v2/routes/:route_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: { tags, summary: 'One route template', params: RouteParams, response: { 200: StoredRoute } },
    },
    async (request) => routes.get(request.developer, request.params.route_id),
  );

  app.put(
    '/v2/routes/:route_id',
    {
      config: bodyConfig,
      bodyLimit: ROUTE_BODY_LIMIT,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Update a route template (partial: only the fields given change)',
        description:
          'Without cascade: 200 with the updated route; devices it was pushed to keep the old one. With ' +
          'cascade=true: 202, and the route is re-pushed to every device in the background (failures only logged).',
        params: RouteParams,
        querystring: CascadeQuery,
        body: RouteUpdate,
        response: { 200: StoredRoute, 202: CascadeAccepted },
      },
    },
    async (request, reply) => {
      const cascade = request.query.cascade === true;
      const answer = await routes.update(
        request.developer,
        request.params.route_id,
        request.body as Update,
        cascade,
      );
      return reply.code(cascade ? 202 : 200).send(answer);
    },
  );

  app.delete(
    '/v2/routes/:route_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Delete a route template (routes already pushed stay on the devices)',
        params: RouteParams,
        response: { 200: Success },
      },
    },
    async (request) => routes.remove(request.developer, request.params.route_id),
  );

  app.post(
    '/v2/routes/:route_id/push',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Push a route to a user’s device',
        description: providerNote(ctx),
        params: RouteParams,
        querystring: UserQuery,
        response: { 201: RoutePushed },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await routes.push(request.developer, request.params.route_id, request.query.user_id)),
  );

  app.get(
    '/v2/pushedRoutes',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'A user’s pushed routes',
        querystring: UserQuery,
        response: { 200: Type.Array(PushedRoute) },
      },
    },
    async (request) => routes.listPushed(request.developer, request.query.user_id),
  );

  app.get(
    '/v2/pushedRoutes/:pushed_route_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'One pushed route',
        params: PushedRouteParams,
        querystring: UserQuery,
        response: { 200: PushedRoute },
      },
    },
    async (request) =>
      routes.getPushed(request.developer, request.query.user_id, request.params.pushed_route_id),
  );

  app.delete(
    '/v2/pushedRoutes/:pushed_route_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Remove a pushed route (from the device too where the provider has a delete API)',
        description:
          'A provider without a delete API keeps the route on the device; the answer is still a success.',
        params: PushedRouteParams,
        querystring: UserQuery,
        response: { 200: Success },
      },
    },
    async (request) =>
      routes.removePushed(request.developer, request.query.user_id, request.params.pushed_route_id),
  );
}
