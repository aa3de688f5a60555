import type { AppContext } from '../../features/context.ts';
import { AppError } from '../../core/errors.ts';
import type { App } from '../app-type.ts';
import { CALLBACK_ROUTE } from '../../provider-kit/callback-url.ts';
import { renderMessagePage, sendHostedPage, sendHostedRedirect } from '../hosted/html.ts';
import { messagesFor } from '../hosted/i18n.ts';
import {
  AuthenticateUserBody,
  AuthenticateUserQuery,
  AuthenticateUserResponse,
  AuthTokenQuery,
  AuthTokenResponse,
  CallbackParams,
  CallbackQuery,
  DeauthenticateQuery,
  StatusResponse,
} from '../../features/connecting/schemas.ts';

const tags = ['connections'];
const developer = { auth: 'developer' as const };

export function registerConnectingRoutes(app: App, ctx: AppContext) {
  for (const url of ['/v2/auth/authenticateUser', '/v2/auth/generateAuthURL']) {
    app.post(
      url,
      {
        config: developer,
        schema: {
          tags,
          summary:
            url === '/v2/auth/authenticateUser'
              ? 'Create a user (pending) and the provider consent URL'
              : 'Alias of /v2/auth/authenticateUser',
          querystring: AuthenticateUserQuery,
          body: AuthenticateUserBody,
          response: { 200: AuthenticateUserResponse },
        },
        // Older clients send no body at all; treat that as an empty one.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => {
        const body = request.body;
        const resource = request.query.resource ?? body.resource;
        if (!resource) throw new AppError('bad_request', 'missing resource: required parameter');
        const link = await ctx.connecting.createAuthLink({
          developerId: request.developer.id,
          resource,
          referenceId: body.reference_id,
          language: body.language,
          successRedirectUrl: body.auth_success_redirect_url,
          failureRedirectUrl: body.auth_failure_redirect_url,
        });
        return { status: 'success' as const, user_id: link.userId, auth_url: link.authUrl };
      },
    );
  }

  app.get(
    CALLBACK_ROUTE,
    {
      config: { auth: 'none' },
      schema: {
        tags: ['hosted pages'],
        summary: 'OAuth redirect URI: the provider sends the end user back here',
        description: 'Register this URL (with the provider id) as the redirect URI at each provider.',
        params: CallbackParams,
        querystring: CallbackQuery,
      },
    },
    async (request, reply) => {
      const outcome = await ctx.connecting.completeCallback(request.params.provider, request.query);
      if (outcome.kind === 'redirect') return sendHostedRedirect(reply, outcome.location, 302);
      const m = messagesFor(outcome.language);
      if (outcome.kind === 'unavailable')
        return sendHostedPage(
          reply,
          403,
          renderMessagePage(outcome.language, m.unavailableTitle, m.unavailableBody),
        );
      return sendHostedPage(reply, 400, renderMessagePage(outcome.language, m.invalidTitle, m.invalidBody));
    },
  );

  app.delete(
    '/v2/auth/deauthenticateUser',
    {
      config: developer,
      schema: {
        tags,
        summary: 'Disconnect a user: revoke at the provider, delete the user and its data, send deauth',
        querystring: DeauthenticateQuery,
        response: { 200: StatusResponse },
      },
    },
    async (request) => {
      await ctx.connecting.deauthenticate(request.developer.id, request.query.user_id);
      return { status: 'success' as const };
    },
  );

  // The vendor's current name is /v2/auth/tokens; /v2/auth/generateAuthToken stays as its alias.
  // Both take `reference_id` as a query parameter that binds the token (docs/wire-contract.md).
  for (const [url, summary] of [
    ['/v2/auth/tokens', 'A short-lived, single-use token for a mobile SDK to create an SDK-based connection'],
    ['/v2/auth/generateAuthToken', 'The older name of POST /v2/auth/tokens (kept)'],
  ] as const) {
    app.post(
      url,
      {
        config: developer,
        schema: {
          tags,
          summary,
          description:
            'With reference_id, the connection the SDK makes with this token carries that reference id, whatever ' +
            'the SDK sends; connecting the same (developer, reference_id, provider) again makes a new user, deletes ' +
            'the previous ones and sends user_reauth with old_user and new_user.',
          querystring: AuthTokenQuery,
          response: { 200: AuthTokenResponse },
        },
      },
      async (request) => {
        const issued = await ctx.connecting.issueSdkToken(request.developer.id, request.query.reference_id);
        return { status: 'success' as const, token: issued.token, expires_in: issued.expiresIn };
      },
    );
  }
}
