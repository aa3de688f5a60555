import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_KINDS, type ErrorKind } from '../core/errors.ts';
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

export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  publicUrl: string,
  problem: { kind: ErrorKind; status: number; detail: string; extensions?: Record<string, unknown> },
) {
  const body: Record<string, unknown> = {
    type: `${publicUrl}/problems/${problemSlug(problem.kind)}`,
    title: ERROR_KINDS[problem.kind]?.title ?? STATUS_CODES[problem.status]?.toLowerCase() ?? 'error',
    status: problem.status,
    detail: problem.detail,
    instance: request.url.split('?')[0],
    ...problem.extensions,
  };
  if (problem.status >= 500) body.request_id = request.id;
  return reply.code(problem.status).type('application/problem+json').send(body);
}

export function registerProblemHandling(app: App, publicUrl: string) {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      if (error.status >= 500) request.log.error({ err: error }, 'request failed');
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
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }));
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
