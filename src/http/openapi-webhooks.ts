// The OpenAPI 3.1 `webhooks` section: one entry per event type the service sends, its payload
// schema (declared next to each feature's event builders), an example and the delivery headers.
// Data records are referenced as the document's shared model schemas; the webhook `user` object is
// one shared schema too, rather than copied into twenty events.
import type { TSchema } from 'typebox';
import { webhookUserAgent } from '../features/delivery/signing.ts';
import { connectionEventSchemas } from '../features/connecting/event-schemas.ts';
import { dataEventSchemas } from '../features/data/event-schemas.ts';
import { labReportEventSchemas } from '../features/lab-reports/event-schemas.ts';
import { mergeEventSchemas } from '../features/merge/event-schemas.ts';
import { orderEventSchemas } from '../features/orders/domain/event-schemas.ts';
import { webhookEventSchemas } from '../features/delivery/event-schemas.ts';
import { version } from '../core/version.ts';
import { ensureExample, resolverFor } from './openapi-examples.ts';

/** Every event type the service sends, with its payload schema, grouped by the feature sending it. */
export const WEBHOOK_EVENT_GROUPS: Record<string, Record<string, TSchema>> = {
  'Connection events': connectionEventSchemas,
  'Data events': dataEventSchemas,
  'Merged view events': mergeEventSchemas,
  'Healthcheck event': webhookEventSchemas,
  'Order events': orderEventSchemas,
  'Lab report events': labReportEventSchemas,
};

const SHARED_TITLES = new Set(['WebhookUser']);
const COMPONENTS = '#/components/schemas/';

type Json = unknown;

/**
 * A plain JSON copy of a TypeBox schema with document references: `$ref: "Activity"` becomes
 * `#/components/schemas/Activity`, and a shared object (by title) becomes a reference to it.
 */
function toDocumentSchema(schema: Json, shared: Map<string, Json>): Json {
  if (Array.isArray(schema)) return schema.map((each) => toDocumentSchema(each, shared));
  if (typeof schema !== 'object' || schema === null) return schema;
  const object = schema as Record<string, Json>;
  if (typeof object.title === 'string' && SHARED_TITLES.has(object.title)) {
    if (!shared.has(object.title)) {
      const { title, ...rest } = object;
      shared.set(title, { title, ...(toDocumentSchema(rest, new Map()) as object) });
    }
    return { $ref: `${COMPONENTS}${object.title}` };
  }
  const copy: Record<string, Json> = {};
  for (const [key, value] of Object.entries(object)) {
    copy[key] =
      key === '$ref' && typeof value === 'string' && !value.startsWith('#')
        ? `${COMPONENTS}${value}`
        : toDocumentSchema(value, shared);
  }
  return copy;
}

const header = (name: string, description: string, required = true, example?: string) => ({
  in: 'header',
  name,
  required,
  description,
  schema: { type: 'string' },
  ...(example ? { example } : {}),
});

const DELIVERY_HEADERS = [
  header(
    'webhook-id',
    'The event id: the same on every retry; dedupe on it (and replay by it)',
    true,
    'evt_9f2c41d07b3e8a56c1d2e3f4',
  ),
  header('webhook-timestamp', 'Unix seconds of this attempt', true, '1735732800'),
  header(
    'webhook-signature',
    'Standard Webhooks signature(s): `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, space separated during a secret rotation',
  ),
  header(
    'service-signature',
    '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` keyed with the whole secret string, for receivers of the reference API',
  ),
  header('service-reference', 'The request that caused the event (data reads sent to the webhook)', false),
  header('user-agent', 'Who sends it', true, webhookUserAgent(version)),
];

/**
 * An event's one-line summary: its description's first clause (`activity records of one user: …`
 * → `Activity records of one user`). An event without a description is a mistake of its feature.
 */
export function summaryOf(type: string, description: string | undefined): string {
  const clause = description?.split(/(?<!\be\.g|\bi\.e)[.:;](?:\s|$)/)[0]?.trim();
  if (!clause) throw new Error(`webhook event ${type} has no description to summarise`);
  return clause.charAt(0).toUpperCase() + clause.slice(1);
}

/**
 * The `webhooks` object, and the shared schemas it references that the document must add to
 * `components.schemas`. `components` (the document's own) resolves the model references for the
 * examples.
 */
export function webhooksSection(components: Record<string, unknown>): {
  webhooks: Record<string, unknown>;
  schemas: Record<string, unknown>;
} {
  const shared = new Map<string, Json>();
  const webhooks: Record<string, unknown> = {};
  const entries = Object.entries(WEBHOOK_EVENT_GROUPS).flatMap(([tag, schemas]) =>
    Object.entries(schemas).map(([type, schema]) => ({
      tag,
      type,
      schema: toDocumentSchema(schema, shared),
    })),
  );
  const resolve = resolverFor({ ...components, ...Object.fromEntries(shared) });
  for (const { tag, type, schema } of entries) {
    const { description } = schema as { description?: string };
    const media = { schema };
    ensureExample(media, resolve);
    webhooks[type] = {
      post: {
        operationId: `event:${type}`,
        // The entry is listed under its name already: the summary says what the event is.
        summary: summaryOf(type, description),
        ...(description ? { description } : {}),
        tags: [tag],
        parameters: DELIVERY_HEADERS,
        requestBody: { required: true, content: { 'application/json': media } },
        responses: {
          '200': {
            description:
              'Any 2xx within the timeout acknowledges the event; anything else is retried with backoff',
          },
        },
      },
    };
  }
  return { webhooks, schemas: Object.fromEntries(shared) };
}
