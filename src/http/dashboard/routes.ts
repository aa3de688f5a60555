import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import { AppError } from '../../core/errors.ts';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { createHostedLimits } from '../hosted/limits.ts';
import {
  clearSessionCookie,
  cookieSecret,
  createGuards,
  DASHBOARD_ROUTE,
  field,
  type Form,
  SESSION_COOKIE,
  sendPage,
  setSessionCookie,
  signInNonce,
  SIGN_IN_COOKIE,
} from './guard.ts';
import { renderSignIn, renderStandalone } from './layout.ts';
import { registerKeyPages } from './keys.ts';
import { registerLabReportActions } from './lab-reports.ts';
import { registerOutputFormatPages } from './output-format.ts';
import { registerOperatorPages } from './operator.ts';
import { registerOrderPages } from './orders.ts';
import { overviewPage } from './overview.ts';
import { registerProviderPages } from './providers.ts';
import { registerUserPages } from './users.ts';
import { registerDestinationPages } from './destinations.ts';

/**
 * The developer dashboard at /dashboard: server-rendered pages in a scope of their own (cookies
 * and form bodies are parsed only here). Every action calls the same service the API route
 * calls and is written to the audit log.
 */
export async function registerDashboardRoutes(app: App, ctx: AppContext) {
  const limits = createHostedLimits(ctx);
  await app.register(async (scope) => {
    await scope.register(fastifyCookie, { secret: cookieSecret(ctx) });
    await scope.register(fastifyFormbody);
    const guards = createGuards(ctx);
    const { dashboard } = ctx;

    scope.get('/dashboard', DASHBOARD_ROUTE, async (request, reply) => {
      const session = await guards.sessionOf(request);
      if (session?.kind === 'operator')
        return reply.code(303).header('location', '/dashboard/operator').send();
      if (session) return guards.developerPage(overviewPage(ctx))(request, reply);
      if (request.cookies[SESSION_COOKIE]) clearSessionCookie(reply);
      const formToken = dashboard.signInFormToken(signInNonce(request, reply, ctx));
      return sendPage(reply, 200, renderSignIn({ formToken, operatorEnabled: dashboard.operatorEnabled }));
    });

    /** Both sign-in forms: the pre-session token, then the per-address limit against guessing. */
    async function admitSignIn(
      form: Form,
      cookies: Record<string, string | undefined>,
      request: Parameters<typeof limits.admit>[0],
    ) {
      if (!dashboard.checkSignInFormToken(cookies[SIGN_IN_COOKIE] ?? '', field(form, 'csrf'))) {
        return new AppError('forbidden', 'The form expired. Reload the page and sign in again.');
      }
      return limits.admit(request);
    }

    scope.post('/dashboard/sign-in', DASHBOARD_ROUTE, async (request, reply) => {
      const form = (request.body ?? {}) as Form;
      const devId = field(form, 'dev_id');
      const formToken = dashboard.signInFormToken(signInNonce(request, reply, ctx));
      const refusal = await admitSignIn(form, request.cookies, request);
      try {
        if (refusal) throw refusal;
        const opened = await dashboard.signInDeveloper(devId, field(form, 'api_key'));
        // A session this browser had before ends: one sign-in, one session.
        await dashboard.signOut(request.cookies[SESSION_COOKIE]);
        setSessionCookie(request, reply, ctx, opened);
        const session = await dashboard.resolve(opened.sessionId);
        if (session)
          await dashboard.audit(session, {
            action: 'sign-in',
            target: session.kind === 'developer' ? `key ${session.keyId}` : null,
          });
        return reply.code(303).header('location', '/dashboard').send();
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const message =
          error.kind === 'unauthorized' ? 'Unknown Developer ID or invalid API key.' : error.message;
        return sendPage(
          reply,
          error.status,
          renderSignIn({ formToken, operatorEnabled: dashboard.operatorEnabled, error: message, devId }),
        );
      }
    });

    scope.post('/dashboard/operator/sign-in', DASHBOARD_ROUTE, async (request, reply) => {
      if (!dashboard.operatorEnabled) {
        return sendPage(
          reply,
          404,
          renderStandalone('Not available', 'Operator sign-in is disabled on this deployment.'),
        );
      }
      const form = (request.body ?? {}) as Form;
      const formToken = dashboard.signInFormToken(signInNonce(request, reply, ctx));
      const refusal = await admitSignIn(form, request.cookies, request);
      try {
        if (refusal) throw refusal;
        const opened = await dashboard.signInOperator(field(form, 'operator_token'));
        await dashboard.signOut(request.cookies[SESSION_COOKIE]);
        setSessionCookie(request, reply, ctx, opened);
        const session = await dashboard.resolve(opened.sessionId);
        if (session) await dashboard.audit(session, { action: 'sign-in' });
        return reply.code(303).header('location', '/dashboard/operator').send();
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return sendPage(
          reply,
          error.status,
          renderSignIn({ formToken, operatorEnabled: true, error: error.message }),
        );
      }
    });

    // Sign-out needs the form token too: otherwise any page could sign a developer out.
    scope.post('/dashboard/sign-out', DASHBOARD_ROUTE, async (request, reply) => {
      const session = await guards.sessionOf(request);
      if (session) {
        if (!dashboard.checkFormToken(session, field((request.body ?? {}) as Form, 'csrf'))) {
          return sendPage(
            reply,
            403,
            renderStandalone('Form expired', 'The form token is missing or does not belong to your session.'),
          );
        }
        await dashboard.audit(session, { action: 'sign-out' });
        await dashboard.signOut(request.cookies[SESSION_COOKIE]);
      }
      clearSessionCookie(reply);
      return reply.code(303).header('location', '/dashboard').send();
    });

    registerUserPages(scope, ctx, guards);
    registerLabReportActions(scope, ctx, guards);
    registerDestinationPages(scope, ctx, guards);
    registerOutputFormatPages(scope, ctx, guards);
    registerProviderPages(scope, ctx, guards);
    registerKeyPages(scope, ctx, guards);
    registerOrderPages(scope, ctx, guards);
    registerOperatorPages(scope, ctx, guards);
  });
}
