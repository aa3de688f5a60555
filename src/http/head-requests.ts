// HEAD answered by each path's GET route, without a HEAD route per GET route.
//
// Fastify's default (exposeHeadRoutes) registers a HEAD copy of every GET route, and the router
// keeps one tree per method, compiling a matcher for every static node of each: measured, about
// half of route registration's CPU at start-up (issue 42) goes to HEAD routes. Instead, the
// router looks a HEAD up as a GET; the request is a HEAD again before its first hook runs, so
// hooks, handlers, logs and metrics see the method the client sent; and each GET route ends its
// answer to a HEAD with Fastify's own HEAD step (the length of what a GET would send, no body).
import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify';
import type { App } from './app-type.ts';

type RawRequest = FastifyRequest['raw'];
type OnSend = (
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (e: null, p: unknown) => void,
) => void;

// Requests whose method the router saw as GET.
const lookedUpAsGet = new WeakSet<RawRequest>();

/**
 * Fastify's `rewriteUrl` option (called with the raw request just before the router looks it
 * up): a HEAD is looked up as a GET. The URL is left as it is.
 */
export function lookUpHeadAsGet(request: RawRequest): string {
  if (request.method === 'HEAD') {
    request.method = 'GET';
    lookedUpAsGet.add(request);
  }
  return request.url!;
}

// Fastify's own end of a HEAD route (a body's length, a stream drained, no body): resolved from
// Fastify itself so a HEAD ends exactly as it would on the HEAD route Fastify would have made.
const fastifyHeadEnd = (
  createRequire(import.meta.resolve('fastify'))('./lib/head-route.js') as {
    parseHeadOnSendHandlers: (handlers: null) => OnSend;
  }
).parseHeadOnSendHandlers(null);

const endOfHead: OnSend = (request, reply, payload, done) => {
  if (request.method === 'HEAD') fastifyHeadEnd(request, reply, payload, done);
  else done(null, payload);
};

/** Before any hook or route: the app must be built with `exposeHeadRoutes: false` and `lookUpHeadAsGet`. */
export function registerHeadRequests(app: App) {
  app.addHook('onRequest', (request, _reply, done) => {
    if (lookedUpAsGet.has(request.raw)) request.raw.method = 'HEAD';
    done();
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('HEAD')) throw new Error(`${route.url}: HEAD is answered by the path's GET route`);
    if (!methods.includes('GET')) return;
    // Last, as on Fastify's HEAD routes: after the route's own onSend steps.
    const own = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...own, endOfHead as onSendHookHandler];
  });
}
