// The error responses of every route in the OpenAPI document, decided in one place: the
// statuses any route of a kind can answer (bad input, credentials, a body, path parameters)
// follow from the route itself, and the few outcomes only a service knows (a conflict, a
// declined payment, a rate limit) are listed per route below. The property-based test over the
// whole document checks that every error status it meets is one the route documents.
import Type from 'typebox';
import { ERROR_KINDS, type ErrorKind } from '../core/errors.ts';

/** RFC 7807 problem details: the body of every error. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI of the problem type; it resolves to a short description' }),
    title: Type.String({ description: 'Short summary of the problem type' }),
    status: Type.Integer({ description: 'The HTTP status code' }),
    detail: Type.String({ description: 'What went wrong with this request, e.g. which parameter and why' }),
    instance: Type.Optional(Type.String({ description: 'The path of the request' })),
    request_id: Type.Optional(
      Type.String({
        description: 'The request id (also the x-request-id header): quote it when reporting a failure',
      }),
    ),
  },
  {
    $id: 'Problem',
    title: 'Problem',
    description:
      'application/problem+json. Some problems carry more members: invalid_fields (400 on orders), ' +
      'current_status and valid_events (422), category (402), reason (409).',
    additionalProperties: true,
  },
);

const WHY: Partial<Record<number, string>> = {
  400: 'Invalid input: the detail names the parameter and what was expected',
  401: 'Missing or invalid credentials',
  402: 'Payment declined: nothing was created or charged',
  403: 'Not allowed: a suspended developer, or an API this dev-id may not use',
  404: 'Not found (or not yours)',
  409: 'Conflict with the current state',
  410: 'Gone: expired or already used',
  413: 'Request body over 1 MB',
  414: 'A path parameter over 100 characters',
  415: 'Unsupported content-type: send application/json',
  422: 'Not a valid transition from the current state',
  424: 'The provider refused or could not take the change: retry after Retry-After',
  429: 'Rate limited: see Retry-After (and, on data reads, the X-Service-RateLimit-* headers)',
  500: 'Internal error: the body carries a request_id to quote',
  503: 'A provider or the database is not answering: retry after Retry-After',
  507: 'The database is out of disk space: nothing was written',
};

const KIND_OF_STATUS = new Map<number, ErrorKind>(
  Object.entries(ERROR_KINDS).map(([kind, { status }]) => [status, kind as ErrorKind]),
);

/** Outcomes only the service behind a route knows about, by `METHOD url`. */
const ROUTE_PROBLEMS: Record<string, readonly number[]> = {
  'POST /v2/auth/authenticateUser': [404],
  'POST /v2/auth/generateAuthURL': [404],
  'POST /v2/auth/generateWidgetSession': [404],
  'POST /widget/api/session': [404],
  'POST /v2/webhook/rotate-secret': [429],
  'POST /v2/webhook/test': [409],
  'POST /v2/webhook/deliveries/:event_id/replay': [409],
  'POST /v2/destinations': [409],
  'DELETE /v2/destinations/:id': [409],
  'POST /v2/destinations/:id/test': [409],
  'POST /v2/destinations/:id/rotate-secret': [409, 429],
  'POST /v2/plannedWorkout': [503],
  'DELETE /v2/plannedWorkout': [503],
  'DELETE /v2/workouts/:workout_id': [424],
  'POST /v2/workouts/:workout_id/plan': [424],
  'PATCH /v2/plannedWorkouts/:planned_workout_id': [424],
  'DELETE /v2/plannedWorkouts/:planned_workout_id': [424],
  'POST /api/v1/orders': [402, 409],
  'POST /api/v1/orders/:orderID/simulate': [422],
  'POST /api/v1/orders/activate': [401, 403, 404, 409, 429],
  'GET /api/v1/results/:orderItemID/download': [403, 404, 410],
  'GET /providers/:provider/webhook': [403, 404, 503],
  'POST /providers/:provider/webhook': [401, 404, 429, 503],
  'POST /v2/sdk/connect': [401, 404],
  'POST /v2/sdk/upload': [401, 403, 429],
  'POST /v2/import/:format': [404, 429],
  'POST /v2/lab-reports': [429],
  'POST /v2/reports': [429],
  'POST /v2/reports/upload': [429],
  'POST /v2/lab-reports/:session_id/reprocess': [409, 410],
  // A merged read is each of the person's connections' read: budgeted, and synced from providers.
  'GET /v3/people/:reference_id/:type': [429, 503],
  // FHIR: an export file's link is signed (403) and expires (410); a cancelled or expired export is a 404.
  'GET /v2/fhir/$export-files/:export_id/:user_id/:type': [403, 404, 410],
  'GET /v2/fhir/Observation': [404],
};

export type RouteFacts = {
  method: string;
  url: string;
  authenticated: boolean;
  hasParams: boolean;
  /** A user_id in the query or body: an unknown one is a 404. */
  namesUser: boolean;
  tags: readonly string[];
};

/** The error statuses a route can answer. */
export function problemStatusesOf(route: RouteFacts): number[] {
  // Any route may find the database unreachable (503); a write may find its disk full (507).
  const statuses = new Set<number>([400, 500, 503]);
  if (route.authenticated) [401, 403].forEach((status) => statuses.add(status));
  if (route.hasParams) [404, 414].forEach((status) => statuses.add(status));
  if (route.namesUser) statuses.add(404);
  if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method))
    [413, 415, 507].forEach((s) => statuses.add(s));
  // Data reads are budgeted (429) and may need the provider (503).
  if (route.method === 'GET' && route.tags.includes('data')) [429, 503].forEach((s) => statuses.add(s));
  for (const status of ROUTE_PROBLEMS[`${route.method} ${route.url}`] ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

/** Successes of routes that declare no response schema and do not answer 200. */
const ROUTE_SUCCESS: Record<string, Record<string, object>> = {
  'GET /v2/auth/callback/:provider': {
    302: {
      description:
        'Back to your app (auth_success_redirect_url or auth_failure_redirect_url) or to the hosted outcome page',
      type: 'null',
    },
  },
};

/** The success entry of a route with no response schema of its own. */
export function successResponses(method: string, url: string): Record<string, object> {
  return ROUTE_SUCCESS[`${method} ${url}`] ?? { 200: { description: 'Success', type: 'null' } };
}

/** Response entries (the @fastify/swagger form) for a route's problems, by status. */
export function problemResponses(statuses: readonly number[]): Record<string, object> {
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: WHY[status] ?? ERROR_KINDS[KIND_OF_STATUS.get(status) ?? 'bad_request'].title,
        content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
      },
    ]),
  );
}
