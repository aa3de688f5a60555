import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import { AppError } from '../../core/errors.ts';
import type { AppContext } from '../../features/context.ts';
import type { DashboardSession } from '../../features/dashboard/service.ts';
import type { Developer } from '../../features/developers/service.ts';
import { sendHostedPage } from '../hosted/page.ts';
import { type Flash, renderDashboardPage, renderStandalone } from './layout.ts';
import { html, type SafeHtml } from '../safe-html.ts';

/**
 * Sessions, form tokens and flash messages of the dashboard. The session cookie holds only a
 * random id (the store keeps its hash): HttpOnly, SameSite=Strict, scoped to /dashboard, Secure
 * whenever the dashboard is reached over HTTPS. Every post must carry the session's form token
 * (the sign-in forms: a token bound to a random pre-session cookie).
 */
export const SESSION_COOKIE = 'tributary_dashboard';
export const SIGN_IN_COOKIE = 'tributary_dashboard_sign_in';
const FLASH_COOKIE = 'tributary_dashboard_flash';
const COOKIE_PATH = '/dashboard';

/** Dashboard pages are HTML for people: hidden from the OpenAPI document, no API credentials. */
export const DASHBOARD_ROUTE = { config: { auth: 'none' as const }, schema: { hide: true } as object };

export type Form = Record<string, string | string[] | undefined>;

/** One value of a form field (the first, when a field came more than once). */
export const field = (form: Form, name: string): string => {
  const value = form[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
};
/** A query parameter as one string: the first when repeated, '' when absent (links can be edited by hand). */
export const queryField = (request: FastifyRequest, name: string): string =>
  field((request.query ?? {}) as Form, name);

export const fields = (form: Form, name: string): string[] => {
  const value = form[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
};

/** The signing secret of the flash cookie, derived from the service key (no extra setting). */
export const cookieSecret = (ctx: AppContext) =>
  createHmac('sha256', ctx.config.encryptionKey).update('dashboard-cookie-signing').digest();

function secure(request: FastifyRequest, ctx: AppContext): boolean {
  return request.protocol === 'https' || ctx.config.publicUrl.startsWith('https:');
}

function cookieOptions(request: FastifyRequest, ctx: AppContext, maxAge?: number) {
  return {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: secure(request, ctx),
    ...(maxAge === undefined ? {} : { maxAge }),
  };
}

export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  opened: { sessionId: string; maxAgeSeconds: number },
) {
  reply.setCookie(SESSION_COOKIE, opened.sessionId, cookieOptions(request, ctx, opened.maxAgeSeconds));
  reply.clearCookie(SIGN_IN_COOKIE, { path: COOKIE_PATH });
}

export function clearSessionCookie(reply: FastifyReply) {
  reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH });
}

/** The pre-session value the sign-in forms' token is bound to; made on first view. */
export function signInNonce(request: FastifyRequest, reply: FastifyReply, ctx: AppContext): string {
  const existing = request.cookies[SIGN_IN_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{22}$/.test(existing)) return existing;
  const nonce = randomBytes(16).toString('base64url');
  reply.setCookie(SIGN_IN_COOKIE, nonce, cookieOptions(request, ctx, 3600));
  return nonce;
}

export function setFlash(request: FastifyRequest, reply: FastifyReply, ctx: AppContext, flash: Flash) {
  reply.setCookie(FLASH_COOKIE, JSON.stringify(flash), { ...cookieOptions(request, ctx, 60), signed: true });
}

/** The message left by the previous action (signed, so nobody else can plant one), read once. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): Flash {
  const raw = request.cookies[FLASH_COOKIE];
  if (!raw) return {};
  reply.clearCookie(FLASH_COOKIE, { path: COOKIE_PATH });
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return {};
  try {
    const parsed = JSON.parse(unsigned.value) as Flash;
    return {
      ...(typeof parsed.notice === 'string' ? { notice: parsed.notice } : {}),
      ...(typeof parsed.error === 'string' ? { error: parsed.error } : {}),
    };
  } catch {
    return {};
  }
}

export function sendPage(reply: FastifyReply, status: number, page: SafeHtml) {
  return sendHostedPage(reply, status, page, { formsPostToSelfOnly: true });
}

export type DeveloperSession = Extract<DashboardSession, { kind: 'developer' }>;
export type OperatorSession = Extract<DashboardSession, { kind: 'operator' }>;

/** What an action leads to: back to a page with a message, or a page of its own (a secret shown once). */
export type ActionResult = { redirect: string; notice: string } | { html: SafeHtml };

type PageHandler<S> = (
  request: FastifyRequest,
  reply: FastifyReply,
  session: S,
  flash: Flash,
) => Promise<unknown>;
type ActionHandler<S> = (request: FastifyRequest, session: S, form: Form) => Promise<ActionResult>;

export function createGuards(ctx: AppContext) {
  const { dashboard } = ctx;

  async function sessionOf(request: FastifyRequest) {
    return dashboard.resolve(request.cookies[SESSION_COOKIE]);
  }

  function page<S extends DashboardSession>(
    kind: S['kind'],
    handler: PageHandler<S>,
    options: { orders?: boolean } = {},
  ) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const session = await sessionOf(request);
      // Without a session every page leads to the sign-in form at /dashboard.
      if (!session) {
        clearSessionCookie(reply);
        return reply.code(303).header('cache-control', 'no-store').header('location', '/dashboard').send();
      }
      if (session.kind !== kind) {
        return reply
          .code(303)
          .header('cache-control', 'no-store')
          .header('location', session.kind === 'operator' ? '/dashboard/operator' : '/dashboard')
          .send();
      }
      if (options.orders && !(session as DeveloperSession).developer.orderApiAccess) {
        return sendPage(
          reply,
          403,
          renderStandalone(
            'No order access',
            'Order API access is not enabled for this developer; ask the operator to enable it.',
          ),
        );
      }
      try {
        return await handler(request, reply, session as S, takeFlash(request, reply));
      } catch (error) {
        // A service's refusal (a malformed or unknown id, another developer's record) is a page
        // for a person, with the same status the API would answer.
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return sendPage(
          reply,
          error.status,
          renderDashboardPage({
            session,
            page: 'overview',
            title: 'Not available',
            body: html`<p>${error.message}</p>`,
          }),
        );
      }
    };
  }

  /**
   * A post: a live session of the right kind and its form token, then the handler, which calls
   * the same service the API calls. A refusal by the service (an AppError) goes back to `back`
   * with its message; anything else is a real failure and reaches the app's error handler.
   */
  function action<S extends DashboardSession>(kind: S['kind'], back: string, handler: ActionHandler<S>) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const session = await sessionOf(request);
      if (!session || session.kind !== kind) {
        clearSessionCookie(reply);
        return sendPage(
          reply,
          401,
          renderStandalone('Signed out', 'Your dashboard session has ended. Sign in again.'),
        );
      }
      const form = (request.body ?? {}) as Form;
      if (!dashboard.checkFormToken(session, field(form, 'csrf'))) {
        return sendPage(
          reply,
          403,
          renderStandalone(
            'Form expired',
            'The form token is missing or does not belong to your session. Go back, reload the page and try again.',
          ),
        );
      }
      try {
        const result = await handler(request, session as S, form);
        if ('html' in result) return sendPage(reply, 200, result.html);
        setFlash(request, reply, ctx, { notice: result.notice });
        return reply.code(303).header('location', result.redirect).send();
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        setFlash(request, reply, ctx, { error: error.message });
        return reply.code(303).header('location', back).send();
      }
    };
  }

  return {
    sessionOf,
    developerPage: (handler: PageHandler<DeveloperSession>, options?: { orders?: boolean }) =>
      page<DeveloperSession>('developer', handler, options),
    operatorPage: (handler: PageHandler<OperatorSession>) => page<OperatorSession>('operator', handler),
    developerAction: (back: string, handler: ActionHandler<DeveloperSession>) =>
      action<DeveloperSession>('developer', back, handler),
    operatorAction: (back: string, handler: ActionHandler<OperatorSession>) =>
      action<OperatorSession>('operator', back, handler),
  };
}

export type Guards = ReturnType<typeof createGuards>;
export type { Developer };
