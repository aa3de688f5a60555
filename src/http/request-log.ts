import type { App } from './app-type.ts';

/** Probes and scrapes arrive every few seconds from machines; one line each would bury the rest. */
export const QUIET_PATHS: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

/**
 * One line per request at info, once it is answered: `GET /v2/activity 200 12ms`, with the
 * request id bound by Fastify (`reqId`) and the same facts as fields for a log collector. The
 * path is logged without its query string: OAuth callbacks carry codes there.
 */
export function registerRequestLog(app: App) {
  app.addHook('onResponse', async (request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const ms = Math.round(reply.elapsedTime);
    const level = QUIET_PATHS.has(path) ? 'debug' : 'info';
    request.log[level](
      { method: request.method, path, status: reply.statusCode, ms },
      `${request.method} ${path} ${reply.statusCode} ${ms}ms`,
    );
  });
}
