import type { FastifyBaseLogger } from 'fastify';
import { levels } from 'pino';
import type { App } from './app-type.ts';

/** Whether `log` writes lines of `level` (its own level can change at run time, so asked each time). */
const logsAt = (log: FastifyBaseLogger, level: 'debug' | 'info') =>
  levels.values[level]! >= (levels.values[log.level] ?? Number.POSITIVE_INFINITY);

/** Probes and scrapes arrive every few seconds from machines; one line each would bury the rest. */
export const QUIET_PATHS: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

/**
 * One line per request at info, once it is answered: `GET /v2/activity 200 12ms`, with the
 * request id bound by Fastify (`reqId`) and the same facts as fields for a log collector. The
 * path is logged without its query string: OAuth callbacks carry codes there.
 */
export function registerRequestLog(app: App) {
  app.addHook('onResponse', (request, reply, done) => {
    // Nothing is built for a line the level drops (a service logging at warn pays no per-request
    // strings or objects for it). Quiet paths log at debug, which needs info on too.
    if (!logsAt(request.log, 'info')) return done();
    const path = request.url.split('?')[0] ?? request.url;
    const ms = Math.round(reply.elapsedTime);
    const level = QUIET_PATHS.has(path) ? 'debug' : 'info';
    if (logsAt(request.log, level)) {
      request.log[level](
        { method: request.method, path, status: reply.statusCode, ms },
        `${request.method} ${path} ${reply.statusCode} ${ms}ms`,
      );
    }
    done();
  });
}
