import type { FastifyReply } from 'fastify';
import Type, { type TStringOptions } from 'typebox';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { FAILURE_PAGE_PATH, SUCCESS_PAGE_PATH } from '../../features/connecting/callback.ts';
import { formBodyParser, renderMessagePage, sendHostedPage, sendHostedRedirect } from '../hosted/html.ts';
import { messagesFor, resolveLanguage } from '../hosted/i18n.ts';
import { browserLanguage, createHostedLimits, refuseHosted } from '../hosted/limits.ts';
import { renderClosedWidget, renderWidget } from '../hosted/widget-pages.ts';
import type { WidgetView } from '../../features/widget/service.ts';
import { isUuid } from '../../features/connections/service.ts';
import { AppError } from '../../core/errors.ts';
import { exampleProviderId } from '../../provider-access/example-ids.ts';

const NullableString = (options: TStringOptions = {}) => Type.Union([Type.String(options), Type.Null()]);

const WidgetSessionBody = Type.Object(
  {
    providers: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()], {
        description:
          'Comma-separated provider ids to offer (default: the selection on the dashboard’s Providers page, else every provider enabled for you)',
      }),
    ),
    language: Type.Optional(
      NullableString({ description: 'en, de, fr, es, it, nl, pt or ja; others fall back to en' }),
    ),
    reference_id: Type.Optional(NullableString({ maxLength: 255 })),
    auth_success_redirect_url: Type.Optional(NullableString({ description: 'Absolute http(s) URL' })),
    auth_failure_redirect_url: Type.Optional(NullableString({ description: 'Absolute http(s) URL' })),
  },
  {
    examples: [
      {
        providers: [exampleProviderId('watch'), exampleProviderId('ring'), exampleProviderId('scale')].join(
          ',',
        ),
        language: 'en',
        reference_id: 'your-user-42',
        auth_success_redirect_url: 'https://app.example.com/connected',
        auth_failure_redirect_url: 'https://app.example.com/connect-failed',
      },
    ],
  },
);

const WidgetSessionResponse = Type.Object({
  session_id: Type.String(),
  url: Type.String({
    description: 'The hosted widget; open it in the end user’s browser',
    examples: ['http://127.0.0.1:8080/widget/session/8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41'],
  }),
  status: Type.Literal('success'),
  expires_in: Type.Integer({ description: 'Seconds until the widget URL stops working' }),
});

const STATUS_OF_CLOSED = { expired: 410, completed: 410, unknown: 404, unavailable: 403 } as const;

function sendView(reply: FastifyReply, view: WidgetView) {
  if (view.state === 'open') return sendHostedPage(reply, 200, renderWidget(view));
  return sendHostedPage(reply, STATUS_OF_CLOSED[view.state], renderClosedWidget(view.language, view.state));
}

export async function registerWidgetRoutes(app: App, ctx: AppContext) {
  // The same operation at the widget API's own path (the vendor's widget-bundled document).
  for (const url of ['/v2/auth/generateWidgetSession', '/widget/api/session']) {
    app.post(
      url,
      {
        config: { auth: 'developer' },
        schema: {
          tags: ['connections'],
          summary:
            url === '/widget/api/session'
              ? 'A hosted connect widget session (the widget API’s path for generateWidgetSession)'
              : 'A hosted connect widget session',
          body: WidgetSessionBody,
          response: { 200: WidgetSessionResponse },
        },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => {
        const session = await ctx.widget.createSession(request.developer.id, request.body);
        return {
          session_id: session.sessionId,
          url: session.url,
          status: 'success' as const,
          expires_in: session.expiresIn,
        };
      },
    );
  }

  // Hosted pages: HTML, no credentials, form posts parsed only inside this scope.
  const limits = createHostedLimits(ctx);
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, formBodyParser);
    const hosted = { config: { auth: 'none' as const }, schema: { hide: true } as object };

    scope.get('/widget/session/:id', hosted, async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendView(reply, await ctx.widget.view(id));
    });

    // Starting a connection creates state (a pending user, an OAuth attempt, its timer): limited
    // per sender and per session, and only with the form's token.
    scope.post('/widget/session/:id/connect', hosted, async (request, reply) => {
      const { id } = request.params as { id: string };
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      const busy = await limits.admit(request, isUuid(id) ? id : undefined);
      if (busy)
        return refuseHosted(request, reply, busy, { language: browserLanguage(request), title: 'busy' });
      const result = await ctx.widget.choose(id, form.provider ?? '', form.csrf_token ?? '');
      if ('location' in result) return sendHostedRedirect(reply, result.location);
      if ('refused' in result) {
        const refused = new AppError(
          'forbidden',
          'the form token is missing or does not belong to this session',
        );
        return refuseHosted(request, reply, refused, { language: result.language, title: 'invalid' });
      }
      return sendView(reply, result.view);
    });

    for (const [path, outcome] of [
      [SUCCESS_PAGE_PATH, 'success'],
      [FAILURE_PAGE_PATH, 'failure'],
    ] as const) {
      scope.get(path, hosted, async (request, reply) => {
        const language = resolveLanguage((request.query as { lang?: string }).lang);
        const m = messagesFor(language);
        const [title, body] =
          outcome === 'success' ? [m.successTitle, m.successBody] : [m.failureTitle, m.failureBody];
        return sendHostedPage(reply, 200, renderMessagePage(language, title, body));
      });
    }
  });
}
