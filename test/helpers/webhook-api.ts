import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { TestDeveloper, TestService } from './app.ts';
import { until } from './until.ts';

/** Thin helpers over the webhook API for integration tests; every wait is bounded. */

export type DeliveryView = {
  event_id: string;
  type: string;
  user_id: string | null;
  reference: string | null;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  attempts: {
    attempt: number;
    attempted_at: string;
    status_code: number | null;
    error: string | null;
    outcome: string;
    next_attempt_at: string | null;
    duration_ms: number;
  }[];
};

export async function call(
  service: TestService,
  developer: TestDeveloper,
  method: 'GET' | 'PUT' | 'POST',
  url: string,
  payload?: object,
) {
  const response = await service.app.inject({
    method,
    url,
    headers: developer.headers,
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

export async function setUrl(service: TestService, developer: TestDeveloper, url: string) {
  const response = await call(service, developer, 'PUT', '/v2/webhook', { url });
  if (response.status !== 200)
    throw new Error(`PUT /v2/webhook failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function deliveries(
  service: TestService,
  developer: TestDeveloper,
  query = '',
): Promise<DeliveryView[]> {
  const response = await call(service, developer, 'GET', `/v2/webhook/deliveries${query}`);
  if (response.status !== 200)
    throw new Error(`GET deliveries failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.deliveries as DeliveryView[];
}

/** Waits until the delivery of `eventId` satisfies `predicate` (described for the failure message). */
export async function waitForDelivery(
  service: TestService,
  developer: TestDeveloper,
  eventId: string,
  predicate: (delivery: DeliveryView) => boolean,
  description: string,
  timeoutMs?: number,
): Promise<DeliveryView> {
  const found = await until(
    `${eventId} to be ${description}`,
    async () =>
      (await deliveries(service, developer, '?limit=200')).find((delivery) => delivery.event_id === eventId),
    { done: (last) => last !== undefined && predicate(last), timeoutMs },
  );
  return found!;
}

// --- Independent signature checks: node:crypto only, nothing from src/ ---------------------------

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** Standard Webhooks: HMAC-SHA256 keyed with base64-decoded secret (after whsec_) over "id.timestamp.body". */
export function standardSignatureMatches(
  headers: IncomingHttpHeaders,
  body: string | Uint8Array,
  secret: string,
): boolean {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) return false;
    const candidate = Buffer.from(signature, 'base64');
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}

/** service-signature: t=<seconds>,v1=<lowercase hex HMAC-SHA256 keyed with the whole secret string over "t.body">. */
export function serviceSignatureMatches(headers: IncomingHttpHeaders, body: string, secret: string): boolean {
  const value = header(headers, 'service-signature');
  if (!value) return false;
  const parts = value
    .split(',')
    .map((part) => [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)] as const);
  const t = parts.find(([name]) => name === 't')?.[1];
  if (!t || !/^\d+$/.test(t)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return parts.some(
    ([name, signature]) => name === 'v1' && /^[0-9a-f]{64}$/.test(signature) && signature === expected,
  );
}
