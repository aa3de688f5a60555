// Examples of the error responses in the OpenAPI document: every documented 4xx/5xx gets the
// problem+json body the service answers with for that status (the type URI and title the problem
// handler writes, the status, a detail in the wording services use, the request path as instance,
// and on 5xx the request id to quote). The reference test validates each against its schema.
import { ERROR_KINDS, type ErrorKind } from '../core/errors.ts';
import { problemSlug } from './problems.ts';

/** The kind the problem handler names for a status (503: the database one, the commoner). */
const KIND_OF_STATUS = new Map<number, ErrorKind>(
  Object.entries(ERROR_KINDS).map(([kind, { status }]) => [status, kind as ErrorKind]),
);

/** A detail as the service words it for each status (see core/errors.ts and http/problems.ts). */
const DETAIL: Record<number, string> = {
  400: 'invalid start_date: must match format "date"',
  401: 'dev-id or x-api-key headers are missing',
  402: 'the payment was declined: nothing was created or charged',
  403: 'developer is suspended',
  404: 'user not found',
  405: 'method not allowed',
  408: 'the request took too long to arrive',
  409: 'the request conflicts with the current state',
  410: 'the link has expired or was already used',
  413: 'request body is too large (limit 1048576 bytes)',
  414: 'a path parameter is longer than 100 characters',
  415: 'unsupported content-type: expected application/json',
  422: 'cannot apply event to an order in its current status',
  424: 'the provider refused the change; retry after Retry-After',
  429: 'rate limit exceeded; retry after 60 seconds',
  431: 'request header fields too large',
  500: 'internal error',
  503: 'the database is unreachable right now; retry shortly',
  507: 'the database is out of disk space: nothing was written',
};

/** The problem body the service answers `status` with on `instance` (a request path). */
export function problemExample(publicUrl: string, status: number, instance: string): Record<string, unknown> {
  const kind = KIND_OF_STATUS.get(status) ?? (status >= 500 ? 'internal' : 'bad_request');
  return {
    type: `${publicUrl}/problems/${problemSlug(kind)}`,
    title: ERROR_KINDS[kind].title,
    status,
    detail: DETAIL[status] ?? ERROR_KINDS[kind].title,
    instance,
    // Every problem carries its request's id (http/problems.ts).
    request_id: 'req-1a2b3c',
  };
}
