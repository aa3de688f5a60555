// A typed client for Tributary's REST API. The types (`paths`, `components`, `webhooks`) are
// generated from the OpenAPI document the service serves (src/schema.ts, `npm run generate`);
// the requests are made by openapi-fetch, which takes them: every path, parameter, body and
// answer is checked by TypeScript against the document, and nothing about the wire is written
// here by hand.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths, webhooks } from './schema.js';
export type { Client, ClientOptions } from 'openapi-fetch';
export * from './webhooks.js';

/** RFC 7807 problem details: the body of every error answer. */
export type Problem = components['schemas']['Problem'];

export type TributaryClientOptions = Omit<ClientOptions, 'baseUrl'> & {
  /** Your Tributary's address, e.g. `https://health.example.com` (no trailing `/v2`). */
  baseUrl: string;
  /** Your developer id (sent as `dev-id`). */
  devId?: string;
  /** An API key of that developer (sent as `x-api-key`). */
  apiKey?: string;
};

/** The API client: `client.GET('/v2/userInfo', { params: { query: { user_id } } })` and so on. */
export type TributaryClient = Client<paths>;

/**
 * A client for one developer's credentials. Every method answers `{ data, error, response }`:
 * `data` typed by the operation's success response, `error` by its problem+json.
 */
export function createTributaryClient(options: TributaryClientOptions): TributaryClient {
  const { devId, apiKey, headers, baseUrl, ...rest } = options;
  const credentials: Record<string, string> = {};
  if (devId !== undefined) credentials['dev-id'] = devId;
  if (apiKey !== undefined) credentials['x-api-key'] = apiKey;
  const merged = new Headers(headers as ConstructorParameters<typeof Headers>[0]);
  for (const [name, value] of Object.entries(credentials)) merged.set(name, value);
  return createClient<paths>({ ...rest, baseUrl: baseUrl.replace(/\/+$/, ''), headers: merged });
}

/** An error answer, thrown by `unwrap`: its status and, when the body was problem+json, the problem. */
export class TributaryApiError extends Error {
  override name = 'TributaryApiError';
  readonly status: number;
  readonly problem: Problem | undefined;
  constructor(status: number, problem: Problem | undefined, body: unknown) {
    super(problem ? `${status} ${problem.title}: ${problem.detail}` : `${status}: ${JSON.stringify(body)}`);
    this.status = status;
    this.problem = problem;
  }
}

const isProblem = (value: unknown): value is Problem =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { status?: unknown }).status === 'number' &&
  typeof (value as { title?: unknown }).title === 'string';

/**
 * The data of a successful answer, or a `TributaryApiError` thrown for an error answer:
 * `const user = await unwrap(client.GET('/v2/userInfo', …))`.
 */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const result = await call;
  if (result.response.ok) return result.data as T;
  const body = result.error;
  throw new TributaryApiError(result.response.status, isProblem(body) ? body : undefined, body);
}
