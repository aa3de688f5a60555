import type { FastifyReply } from 'fastify';
import Type, { type TStringOptions } from 'typebox';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { FAILURE_PAGE_PATH, SUCCESS_PAGE_PATH } from '../../features/connections/callback.ts';
import { formBodyParser, renderMessagePage, sendHostedPage, sendHostedRedirect } from '../hosted/html.ts';
import { messagesFor, resolveLanguage } from '../hosted/i18n.ts';
import { renderClosedWidget, renderWidget } from '../hosted/widget-pages.ts';
import type { WidgetView } from '../../features/widget/service.ts';

const NullableString = (options: TStringOptions = {}) => Type.Union([Type.String(options), Type.Null()]);

const WidgetSessionBody = Type.Object({
  providers: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()], {
      description: 'Comma-separated provider ids to offer (default: every provider enabled for you)',
    }),
  ),
  language: Type.Optional(
    NullableString({ description: 'en, de, fr, es, it, nl, pt or ja; others fall back to en' }),
  ),
  reference_id: Type.Optional(NullableString({ maxLength: 255 })),
  auth_success_redirect_url: Type.Optional(NullableString({ description: 'Absolute http(s) URL' })),
  auth_failure_redirect_url: Type.Optional(NullableString({ description: 'Absolute http(s) URL' })),
});

const WidgetSessionResponse = Type.Object({
  session_id: Type.String(),
  url: Type.String({ description: 'The hosted widget; open it in the end user’s browser' }),
  status: Type.Literal('success'),
  expires_in: Type.Integer({ description: 'Seconds until the widget URL stops working' }),
});

const STATUS_OF_CLOSED = { expired: 410, completed: 410, unknown: 404 } as const;

function sendView(reply: FastifyReply, view: WidgetView) {
  if (view.state === 'open')
    return sendHostedPage(reply, 200, renderWidget(view.language, view.sessionId, view.providers));
  return sendHostedPage(reply, STATUS_OF_CLOSED[view.state], renderClosedWidget(view.language, view.state));
}

export async function registerWidgetRoutes(app: App, ctx: AppContext) {
  app.post(
    '/v2/auth/generateWidgetSession',
    {
      config: { auth: 'developer' },
      schema: {
        tags: ['connections'],
        summary: 'A hosted connect widget session',
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

  // Hosted pages: HTML, no credentials, form posts parsed only inside this scope.
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, formBodyParser);
    const hosted = { config: { auth: 'none' as const }, schema: { hide: true } as object };

    scope.get('/widget/session/:id', hosted, async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendView(reply, await ctx.widget.view(id));
    });

    scope.post('/widget/session/:id/connect', hosted, async (request, reply) => {
      const { id } = request.params as { id: string };
      const provider = (request.body as Record<string, string> | undefined)?.provider ?? '';
      const result = await ctx.widget.choose(id, provider);
      if ('location' in result) return sendHostedRedirect(reply, result.location);
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
