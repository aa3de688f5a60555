import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, databaseFault, databaseOutage, ERROR_KINDS, type ErrorKind } from '../core/errors.ts';
import { faultReporter, REQUESTS_WITHOUT_DATABASE, REQUESTS_PAST_DEADLINE } from '../store/fault-reporter.ts';
import type { App } from './app-type.ts';

/** Every error leaves as `application/problem+json`; this is the only place that writes one. */

const KIND_BY_STATUS = new Map<number, ErrorKind>(
  Object.entries(ERROR_KINDS).map(([kind, { status }]) => [status, kind as ErrorKind]),
);
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export const problemSlug = (kind: ErrorKind) => kind.replaceAll('_', '-');

type ValidationIssue = {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
};

/** Names the parameter and the problem, e.g. `invalid user_id: must match format "uuid"`. */
function describeValidation(issues: ValidationIssue[], context: string | undefined): string {
  const first = issues[0];
  if (!first) return `invalid ${context ?? 'request'}`;
  const path = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (first.keyword === 'required') {
    const missing = String(first.params.missingProperty ?? '');
    const name = path ? `${path}.${missing}` : missing;
    return `missing ${name}: required ${context === 'body' ? 'field' : 'parameter'}`;
  }
  if (first.keyword === 'additionalProperties') {
    const extra = String(first.params.additionalProperty ?? '');
    return `invalid ${path ? `${path}.${extra}` : extra}: unknown ${context === 'body' ? 'field' : 'parameter'}`;
  }
  const name = path || (context === 'body' ? 'body' : (context ?? 'request'));
  return `invalid ${name}: ${first.message ?? 'is not valid'}`;
}

function fromFastifyError(error: FastifyError): { kind: ErrorKind; status: number; detail: string } {
  if (error.validation) {
    return {
      kind: 'bad_request',
      status: 400,
      detail: describeValidation(error.validation as ValidationIssue[], error.validationContext),
    };
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) return { kind: 'internal', status: 500, detail: 'internal error' };
  const kind = KIND_BY_STATUS.get(status) ?? 'bad_request';
  const detail =
    error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
      ? `unsupported content-type: expected application/json`
      : error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
        ? `malformed JSON body: ${error.message}`
        : error.message;
  return { kind, status, detail };
}

type Problem = { kind: ErrorKind; status: number; detail: string; extensions?: Record<string, unknown> };

function problemBody(publicUrl: string, problem: Problem, instance: string | undefined) {
  return {
    type: `${publicUrl}/problems/${problemSlug(problem.kind)}`,
    title: ERROR_KINDS[problem.kind]?.title ?? STATUS_CODES[problem.status]?.toLowerCase() ?? 'error',
    status: problem.status,
    detail: problem.detail,
    ...(instance === undefined ? {} : { instance }),
    ...problem.extensions,
  };
}

export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  publicUrl: string,
  problem: Problem,
) {
  const body: Record<string, unknown> = problemBody(publicUrl, problem, request.url.split('?')[0]);
  // Every problem names its request (the x-request-id header, the log line, the trace's span).
  body.request_id = request.id;
  return reply.code(problem.status).type('application/problem+json').send(body);
}

/**
 * `now` (ms) paces the outage reports: during a database outage every request fails alike, so its
 * 503s are one warning per window and kind, without a stack (nothing in the code is at fault).
 */
export function registerProblemHandling(app: App, publicUrl: string, now = () => Date.now()) {
  const reportOutage = {
    connection: faultReporter(app.log, { source: 'http', message: REQUESTS_WITHOUT_DATABASE }, now),
    statement_timeout: faultReporter(app.log, { source: 'http', message: REQUESTS_PAST_DEADLINE }, now),
  };
  app.setErrorHandler((thrown: FastifyError | AppError, request, reply) => {
    // A lost database connection (503) or a full disk (507) is not a bug in the request or the code.
    const error = thrown instanceof AppError ? thrown : (databaseFault(thrown) ?? thrown);
    if (error instanceof AppError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      const outage = error.kind === 'service_unavailable' ? databaseOutage(error) : undefined;
      if (outage) reportOutage[outage.outage](outage.cause);
      else if (error.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendProblem(reply, request, publicUrl, {
        kind: error.kind,
        status: error.status,
        detail: error.status >= 500 && error.kind === 'internal' ? 'internal error' : error.message,
        extensions: error.extensions,
      });
    }
    const problem = fromFastifyError(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, request, publicUrl, problem);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    // HEAD is answered wherever a GET route is (head-requests.ts).
    const allowed = METHODS.filter((method) =>
      app.findRoute({ method: method === 'HEAD' ? 'GET' : method, url: path }),
    );
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, request, publicUrl, {
        kind: 'method_not_allowed',
        status: 405,
        detail: `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
      });
    }
    return sendProblem(reply, request, publicUrl, {
      kind: 'not_found',
      status: 404,
      detail: `no route for ${request.method} ${path}`,
    });
  });

  // Problem `type` URIs resolve to a short description, so a developer can follow the link.
  app.get(
    '/problems/:slug',
    { schema: { hide: true } as object, config: { auth: 'none' } },
    async (request: FastifyRequest<{ Params: { slug: string } }>, reply) => {
      const entry = Object.entries(ERROR_KINDS).find(
        ([kind]) => problemSlug(kind as ErrorKind) === request.params.slug,
      );
      if (!entry) throw new AppError('not_found', `unknown problem type "${request.params.slug}"`);
      const [kind, { status, title }] = entry;
      return reply.send({ type: request.params.slug, kind, status, title });
    },
  );
}

/**
 * Errors Fastify raises before a route is found (a malformed URL, a path parameter over the
 * router's maxParamLength) and errors of Node's HTTP parser (a request line or headers over
 * 16 kB, a malformed request, a timeout) leave as problems too. Passed to the Fastify factory.
 */
export function frameworkErrorOptions(publicUrl: string) {
  return {
    frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      return sendProblem(reply, request, publicUrl, {
        kind: tooLong ? 'uri_too_long' : 'bad_request',
        status: tooLong ? 414 : 400,
        detail: tooLong
          ? 'a path parameter is longer than 100 characters'
          : error.code === 'FST_ERR_BAD_URL'
            ? 'invalid path: malformed percent-encoding'
            : 'the request could not be routed',
      });
    },
    clientErrorHandler(error: Error & { code?: string; problemDetail?: string }, socket: Duplex) {
      // A reset connection has nobody left to answer.
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const problem: Problem =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? {
              kind: 'header_fields_too_large',
              status: 431,
              detail: 'the request line and headers exceed 16 kB (a query string that long does not fit)',
            }
          : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? {
                kind: 'request_timeout',
                status: 408,
                // Which deadline passed, when ours (body-deadline.ts); Node's own says nothing more.
                detail: error.problemDetail ?? 'the request did not arrive in time',
              }
            : { kind: 'bad_request', status: 400, detail: 'malformed HTTP request' };
      if (socket.writable) {
        const body = JSON.stringify(problemBody(publicUrl, problem, undefined));
        socket.write(
          `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
            'Content-Type: application/problem+json\r\n' +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
  };
}
