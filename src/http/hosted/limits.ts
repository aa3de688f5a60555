// Limits on what hosted pages let anyone do without a credential (start a connection, activate a
// kit), counted in the database so they hold across API processes. Past a limit, and for any
// other refusal, a browser gets a friendly page and an API-style client a problem+json.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../../core/errors.ts';
import type { AppContext } from '../../features/context.ts';
import { createRequestWindows, tooManyRequests } from '../../features/limits/windows.ts';
import { renderMessagePage, sendHostedPage } from './html.ts';
import { type Language, messagesFor, resolveLanguage } from './i18n.ts';
import { hostedSettings } from './settings.ts';

/** A browser navigating (its Accept names HTML) gets pages; anything else gets problem+json. */
export function wantsHtml(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '');
  return /\btext\/html\b|\bapplication\/xhtml\+xml\b/i.test(accept);
}

/** The language of a page shown before any session is known: the browser's first choice. */
export function browserLanguage(request: FastifyRequest): Language {
  const first = String(request.headers['accept-language'] ?? '')
    .split(',')[0]
    ?.split(';')[0]
    ?.trim();
  return resolveLanguage(first || null);
}

/**
 * Refuses a hosted action: a page in `language` for a browser (its title and text chosen from
 * the hosted messages), otherwise the problem the error stands for (thrown to the error handler).
 */
export function refuseHosted(
  request: FastifyRequest,
  reply: FastifyReply,
  error: AppError,
  page: { language: Language; title: 'busy' | 'unavailable' | 'invalid' },
) {
  if (!wantsHtml(request)) throw error;
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  const m = messagesFor(page.language);
  const [title, body] =
    page.title === 'busy'
      ? [m.busyTitle, m.busyBody]
      : page.title === 'unavailable'
        ? [m.unavailableTitle, m.unavailableBody]
        : [m.invalidTitle, m.invalidBody];
  return sendHostedPage(reply, error.status, renderMessagePage(page.language, title, body));
}

export type HostedLimits = ReturnType<typeof createHostedLimits>;

export function createHostedLimits(ctx: Pick<AppContext, 'db' | 'clock' | 'config'>) {
  const windows = createRequestWindows({ db: ctx.db, clock: ctx.clock });
  // Actions (form posts) one sender address may make per window, across every hosted page; connect
  // attempts one widget session may make over its 15-minute life.
  const { perAddress, perSession } = ctx.config.settings.get(hostedSettings);

  return {
    perAddress,
    perSession,
    /**
     * Counts one action of the sender (and of the widget session, when there is one); the 429
     * when either has no room left, otherwise null.
     */
    async admit(request: FastifyRequest, widgetSessionId?: string): Promise<AppError | null> {
      const verdict = await windows.takeAll([
        { scope: `hosted-ip:${request.ip}`, rule: perAddress },
        ...(widgetSessionId
          ? [{ scope: `widget-session:${widgetSessionId.toLowerCase()}`, rule: perSession }]
          : []),
      ]);
      if (verdict.allowed) return null;
      return tooManyRequests('too many attempts from here', verdict.retryAfterSeconds);
    },
  };
}
