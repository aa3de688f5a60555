import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import {
  BulkUserInfoBody,
  BulkUserInfoResponse,
  SubscriptionsQuery,
  SubscriptionsResponse,
  UpdateUserBody,
  UpdateUserResponse,
  UserInfoQuery,
  UserInfoResponse,
  UserParams,
} from '../../features/connections/schemas.ts';

const tags = ['users'];
const config = { auth: 'developer' as const };

export function registerUserRoutes(app: App, ctx: AppContext) {
  app.get(
    '/v2/userInfo',
    {
      config,
      schema: {
        tags,
        summary: 'One user (user_id) or every user with a reference_id',
        querystring: UserInfoQuery,
        response: { 200: UserInfoResponse },
      },
    },
    async (request) => {
      const result = await ctx.connections.userInfo(request.developer.id, request.query);
      if (result.kind === 'many') return result.users;
      return { status: 'success' as const, user: result.user, is_authenticated: result.isAuthenticated };
    },
  );

  app.get(
    '/v2/subscriptions',
    {
      config,
      schema: {
        tags,
        summary: 'Every connected user of the developer, optionally paginated',
        querystring: SubscriptionsQuery,
        response: { 200: SubscriptionsResponse },
      },
    },
    async (request) => {
      const result = await ctx.connections.subscriptions(request.developer.id, request.query);
      if (result.kind === 'all') return { status: 'success' as const, users: result.users };
      return {
        status: 'success' as const,
        data: { next: result.next, max_page: result.maxPage, results: result.results },
      };
    },
  );

  app.post(
    '/v2/bulkUserInfo',
    {
      config,
      schema: {
        tags,
        summary: 'Several users at once',
        body: BulkUserInfoBody,
        response: { 200: BulkUserInfoResponse },
      },
    },
    async (request) => ctx.connections.bulkUserInfo(request.developer.id, request.body),
  );

  app.patch(
    '/v2/users/:user_id',
    {
      config,
      schema: {
        tags,
        summary: 'Change a user’s reference_id or active flag',
        params: UserParams,
        body: UpdateUserBody,
        response: { 200: UpdateUserResponse },
      },
    },
    async (request) => ({
      status: 'success' as const,
      user: await ctx.connections.update(request.developer.id, request.params.user_id, request.body),
    }),
  );
}
