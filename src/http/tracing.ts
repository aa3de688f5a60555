import type { FastifyRequest } from 'fastify';
import {
  contextFromTraceparent,
  failSpan,
  type Span,
  SpanKind,
  startSpan,
  tracingEnabled,
  withActiveSpan,
} from '../core/tracing.ts';
import type { App } from './app-type.ts';
import { QUIET_PATHS } from './request-log.ts';

/**
 * One server span per request (when tracing is on; registered only then): started as the request
 * arrives, continuing the caller's trace when it sent a `traceparent`, active while the route's
 * handler runs (so the jobs it queues and the providers it calls are its children), and ended
 * with the status once the answer is sent. It carries the request id, which is also in the log
 * line of the request and in its problem body, so a trace, a log line and a problem find each other.
 */
export function registerTracing(app: App): void {
  if (!tracingEnabled()) return;
  const spans = new WeakMap<FastifyRequest, Span>();

  app.addHook('onRequest', async (request) => {
    // Probes and scrapes (every few seconds, from machines) would bury the traces that matter.
    const path = request.url.split('?')[0] ?? request.url;
    if (QUIET_PATHS.has(path)) return;
    const span = startSpan(request.method, {
      kind: SpanKind.SERVER,
      parent: contextFromTraceparent(request.headers.traceparent),
      attributes: {
        'http.request.method': request.method,
        'url.path': path,
        'tributary.request_id': request.id,
      },
    });
    if (!span) return;
    spans.set(request, span);
    // Every line this request logs (its one-line summary, a failure) names the trace too.
    const { traceId, spanId } = span.spanContext();
    request.log = request.log.child({ trace_id: traceId, span_id: spanId });
  });

  // Every route's handler runs with the request's span active.
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (this: unknown, request, reply) {
      return withActiveSpan(spans.get(request), () => handler.call(this as never, request, reply));
    } as typeof handler;
  });

  const end = (request: FastifyRequest, status: number | undefined, error?: unknown) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    const route = request.routeOptions.url;
    if (route) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    if (status !== undefined) span.setAttribute('http.response.status_code', status);
    if (error !== undefined) failSpan(span, error);
    else if (status !== undefined && status >= 500) failSpan(span, new Error(`answered ${status}`));
    span.end();
  };
  app.addHook('onResponse', async (request, reply) => end(request, reply.statusCode));
  app.addHook('onRequestAbort', async (request) =>
    end(request, undefined, new Error('the client went away')),
  );
}
