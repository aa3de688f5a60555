// Deadlines on receiving a request body. Fastify sets no request timeout (its requestTimeout is
// 0), so a client that sends headers and then trickles, or stops sending, its body held the
// connection and the bytes buffered so far for as long as it liked: hundreds of such connections
// to a public route held hundreds of MB (issue found by the outsider test,
// scripts/hostile-http.ts). Two deadlines, by how the body is read:
// - read into memory (JSON, forms): the whole body within REQUEST_BODY_TIMEOUT_SECONDS;
// - streamed (multipart files, exports streamed to disk, routes marking `streamedBody`): may take
//   long on a slow link, so no total deadline, but an idle one: no byte for
//   UPLOAD_IDLE_TIMEOUT_SECONDS and the upload ends. A stalled client otherwise held the
//   connection, and the import's spool file, forever; a slow upload that keeps sending goes on.
// Either way: a 408 problem naming the reason, the connection closed. Whoever reads the body sees
// it cut short and cleans up (the import removes its partial spool file).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import type { App } from './app-type.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body is streamed (to disk), not read into memory: an idle deadline, not a total one. */
    streamedBody?: boolean;
  }
}

export type BodyDeadlines = {
  /** The most a body read into memory may take to arrive after its headers. */
  bodyMs: number;
  /** The longest a streamed body may go without a byte arriving. */
  uploadIdleMs: number;
};

/** An idle upload is looked at this many times per idle window: it ends within 1¼ windows of its last byte. */
const IDLE_CHECKS_PER_WINDOW = 4;

const hasBody = (headers: IncomingHttpHeaders) =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

const isMultipart = (headers: IncomingHttpHeaders) => /^\s*multipart\//i.test(headers['content-type'] ?? '');

/** Ends a request whose body did not arrive: a 408 problem saying why, the connection closed. */
function endUnarrived(app: App, raw: IncomingMessage, reply: FastifyReply, detail: string) {
  const socket = raw.socket;
  if (raw.complete || socket.destroyed) return;
  // Answered before the body arrived (401, 404, 429…): Node reads the rest of the body to
  // discard it, holding the connection until it comes. Nothing left to say: closed.
  if (reply.raw.headersSent) return socket.destroy();
  // The one writer of problems to a bare socket (problems.ts, clientErrorHandler): a 408
  // problem, then the connection is closed with whatever was buffered. The reader of the body
  // sees it aborted.
  const error = Object.assign(new Error(detail), { code: 'ERR_HTTP_REQUEST_TIMEOUT', problemDetail: detail });
  app.server.emit('clientError', error, socket);
}

/**
 * Calls `stalled` once the socket has received no byte for a whole idle window while the server
 * was ready to take more. A socket the server paused (backpressure: a slow disk, a handler not
 * reading yet) is the server holding the client back, not the client stalling. Counted in checks
 * rather than clock readings, so a busy event loop delays a verdict and never hastens it.
 * Returns the stop.
 */
function watchIdle(socket: Socket, idleMs: number, stalled: () => void) {
  let seen = socket.bytesRead;
  let quietChecks = 0;
  const timer = setInterval(() => {
    const read = socket.bytesRead;
    if (read !== seen || socket.isPaused()) {
      seen = read;
      quietChecks = 0;
    } else if (++quietChecks >= IDLE_CHECKS_PER_WINDOW) {
      clearInterval(timer);
      stalled();
    }
  }, idleMs / IDLE_CHECKS_PER_WINDOW);
  timer.unref();
  return () => clearInterval(timer);
}

export function registerBodyDeadline(app: App, deadlines: BodyDeadlines) {
  const bodySeconds = deadlines.bodyMs / 1000;
  const idleSeconds = deadlines.uploadIdleMs / 1000;
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const socket = raw.socket;
    // A request injected in process (light-my-request: tests, and the service's own in-process calls) has
    // no network socket, only a stand-in without destroy() or byte counts: its body is handed
    // over whole, so there is nothing to wait for, and a deadline on it could only throw later.
    if (raw.complete || !hasBody(raw.headers) || typeof socket.destroy !== 'function') return done();
    const streamed = isMultipart(raw.headers) || request.routeOptions.config.streamedBody === true;
    let stop: () => void;
    if (streamed) {
      stop = watchIdle(socket, deadlines.uploadIdleMs, () =>
        endUnarrived(
          app,
          raw,
          reply,
          `the upload stalled: no bytes arrived for ${idleSeconds} s (UPLOAD_IDLE_TIMEOUT_SECONDS); send it again`,
        ),
      );
    } else {
      const timer = setTimeout(
        () =>
          endUnarrived(
            app,
            raw,
            reply,
            `the request body did not arrive within ${bodySeconds} s (REQUEST_BODY_TIMEOUT_SECONDS)`,
          ),
        deadlines.bodyMs,
      );
      timer.unref();
      stop = () => clearTimeout(timer);
    }
    // Stopped once the body is in (read by the route, or discarded after an early answer) or the
    // connection is gone; not when the answer is sent, which may come before the body.
    // Both listeners go with it: a keep-alive socket carries many requests.
    const clear = () => {
      stop();
      raw.off('end', clear);
      socket.off('close', clear);
    };
    raw.once('end', clear);
    socket.once('close', clear);
    done();
  });
}
