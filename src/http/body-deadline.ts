// A deadline on receiving a request body that is read into memory. Fastify sets no request
// timeout (its requestTimeout is 0), so a client that sends headers and then trickles, or stops
// sending, its body held the connection and the bytes buffered so far for as long as it liked:
// hundreds of such connections to a public route held hundreds of MB (issue found by the
// outsider test, scripts/hostile-http.ts). Streamed bodies (multipart files, exports streamed to
// disk, routes marking `streamedBody`) may take long on a slow link and hold no memory: exempt.
import type { IncomingHttpHeaders } from 'node:http';
import type { App } from './app-type.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body is streamed (to disk), not read into memory: no receive deadline. */
    streamedBody?: boolean;
  }
}

const hasBody = (headers: IncomingHttpHeaders) =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

const isMultipart = (headers: IncomingHttpHeaders) => /^\s*multipart\//i.test(headers['content-type'] ?? '');

export function registerBodyDeadline(app: App, timeoutMs: number) {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete || !hasBody(raw.headers) || isMultipart(raw.headers)) return done();
    if (request.routeOptions.config.streamedBody) return done();
    const socket = raw.socket;
    const timer = setTimeout(() => {
      if (raw.complete || socket.destroyed) return;
      // Answered before the body arrived (401, 404, 429…): Node reads the rest of the body to
      // discard it, holding the connection until it comes. Nothing left to say: closed.
      if (reply.raw.headersSent) return socket.destroy();
      // The one writer of problems to a bare socket (problems.ts, clientErrorHandler): a 408
      // problem, then the connection is closed with whatever was buffered.
      const error = Object.assign(new Error('the request body did not arrive in time'), {
        code: 'ERR_HTTP_REQUEST_TIMEOUT',
      });
      app.server.emit('clientError', error, socket);
    }, timeoutMs);
    timer.unref();
    // Cleared once the body is in (read by the route, or discarded after an early answer) or the
    // connection is gone; not when the answer is sent, which may come before the body.
    // Both listeners go with it: a keep-alive socket carries many requests.
    const clear = () => {
      clearTimeout(timer);
      raw.off('end', clear);
      socket.off('close', clear);
    };
    raw.once('end', clear);
    socket.once('close', clear);
    done();
  });
}
