import { newId } from '../core/ids.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyReply, LogController } from 'fastify';
import type { AppContext } from '../features/context.ts';
import type { App } from './app-type.ts';
import { registerAuthentication } from './auth.ts';
import { registerMetrics } from './metrics.ts';
import { registerOpenApi } from './openapi.ts';
import { registerInputBoundary } from './input-boundary.ts';
import { registerRequestLog } from './request-log.ts';
import { registerSecurityHeaders } from './security-headers.ts';
import { lazySchemaController } from './lazy-compilers.ts';
import { INPUT_LIMITS } from './input-limits.ts';
import { registerBodyDeadline } from './body-deadline.ts';
import { lookUpHeadAsGet, registerHeadRequests } from './head-requests.ts';
import { registerConnectionCap } from './connection-cap.ts';
import { frameworkErrorOptions, registerProblemHandling } from './problems.ts';
import { routeRegistrars } from './routes/index.ts';
import { registerOpsRoutes } from './routes/ops.ts';
import { ALREADY_SERVING, registerStartupGate, type StartupProgress } from './startup-gate.ts';
import { registerTracing } from './tracing.ts';

/**
 * Fastify's controller with one change: a streamed answer (an archive, a data read) that fails
 * after its headers went out is always logged, with its reason, and not only when request logging
 * is on. Fastify ends such a response by cutting the socket; without this line nobody learns why.
 * A reader that went away (a premature close) is routine: debug.
 */
class StreamFailureLogController extends LogController {
  override streamError(error: Error & { code?: string }, _request: unknown, reply: FastifyReply): void {
    if (error?.code === 'ERR_STREAM_PREMATURE_CLOSE') reply.log.debug('stream closed by the reader');
    else reply.log.warn({ err: error }, `response cut short: its stream failed (${error?.message})`);
  }
}

/** How routes match and their schemas compile: the API documentation's app (openapi.ts) uses them too. */
const ROUTES_AND_SCHEMAS = {
  // strictNumbers off: with it on (ajv 8's default), a query's "Infinity" is coerced to a
  // number and then skips every range check. Off, the range every number gets
  // (schema-bounds.ts) refuses it; JSON bodies cannot carry non-finite numbers past the
  // input boundary at all.
  ajv: { customOptions: { coerceTypes: 'array' as const, allErrors: false, strictNumbers: false } },
  // Validators and serializers compile on a route's first request, not all at start-up.
  schemaController: lazySchemaController as never,
  routerOptions: { ignoreTrailingSlash: true, maxParamLength: INPUT_LIMITS.maxParamLength },
};

/** HEAD is answered by each path's GET route rather than a HEAD copy of it (head-requests.ts). */
const HEAD_BY_GET_ROUTES = { exposeHeadRoutes: false, rewriteUrl: lookUpHeadAsGet };

const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP app without listening, so tests drive it with `inject` or a real port alike. */
export async function buildApp(ctx: AppContext, startup: StartupProgress = ALREADY_SERVING): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    // Fastify's own two lines per request (received, completed) only when tracing; every
    // request gets one compact line at info instead (request-log.ts).
    logController: new StreamFailureLogController({
      disableRequestLogging: ctx.config.logLevel !== 'trace',
    }),
    bodyLimit: 1024 * 1024,
    // Behind a load balancer, the client address (per-address limits) comes from X-Forwarded-For.
    trustProxy: ctx.config.trustProxy,
    // A caller's own request id is kept (so traces join up); otherwise we mint one.
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming) ? incoming : newId('request');
    },
    ...ROUTES_AND_SCHEMAS,
    ...HEAD_BY_GET_ROUTES,
    // Errors raised before a route runs (414, 431, a malformed URL) are problems too.
    ...frameworkErrorOptions(ctx.config.publicUrl),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // First: every later hook sees a HEAD as a HEAD, and every route registers after it.
  registerHeadRequests(app);
  // Hooks that never wait are written with `done`, not async: every request runs them, and an
  // async hook costs a promise and a turn of the microtask queue each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerTracing(app);
  registerStartupGate(app, startup);

  registerRequestLog(app);
  registerSecurityHeaders(app);
  registerProblemHandling(app, ctx.config.publicUrl, () => ctx.clock.now().getTime());
  registerConnectionCap(app, ctx.config.httpMaxConnections);
  registerBodyDeadline(app, {
    bodyMs: ctx.config.requestBodyTimeoutSeconds * 1000,
    uploadIdleMs: ctx.config.uploadIdleTimeoutSeconds * 1000,
  });
  registerInputBoundary(app);
  registerAuthentication(app, ctx.developers);
  const metrics = registerMetrics(app, ctx.jobs, ctx.data.refusals);
  registerOpenApi(app, ctx.config.publicUrl, ROUTES_AND_SCHEMAS);

  registerOpsRoutes(app, { db: ctx.db, schema: ctx.store.postgres.schema, metrics, startup });
  for (const register of routeRegistrars) await register(app, ctx);

  await app.ready();
  return app;
}
