// TypeBox schemas of the destinations API (`/v2/destinations`, tag `destinations`) and of its alias
// for the primary webhook (`/v2/webhook`, tag `webhooks`, the vendor contract's shapes); they
// validate requests, shape responses and document the routes in OpenAPI. A kind's settings are
// checked by its adapter against the kind's own schema (kinds/*.ts), which names the setting that
// is wrong; the route validates `settings` only as an object, because Ajv would answer a union's
// mismatch with a message naming no setting. The API document shows the create body as one
// variant per kind (CreateDestinationDoc, the route's `x-body`) from the same schemas
// (docs/destinations.md).
import Type from 'typebox';
import { MAX_PAGE_SIZE } from './deliveries.ts';
import { KIND_NAMES, KIND_SETTINGS } from './destination-kinds.ts';
import { WEBHOOK_EVENT_STATUSES } from './tables.ts';

const DateTime = (description: string) =>
  Type.Union([Type.String({ examples: ['2025-01-01T12:00:00.000000+00:00'] }), Type.Null()], { description });

export const Destination = Type.Object(
  {
    url: Type.Union([Type.String(), Type.Null()], { description: 'Where events are POSTed; null until set' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('failing'), Type.Literal('disabled')], {
      description:
        'active: delivering. failing: every attempt has failed for longer than failing_after_seconds (still delivering). ' +
        'disabled: failing for longer than disable_after_seconds, or disabled by you; nothing is sent and events are held ' +
        'until PUT /v2/webhook re-enables it',
    }),
    enabled: Type.Boolean({ description: 'false when status is disabled' }),
    recent_failures: Type.Integer({
      description: 'Failed attempts (non-2xx, timeout, network error) in the last 24 hours',
    }),
    consecutive_failures: Type.Integer({ description: 'Failed attempts since the last successful one' }),
    failing_since: DateTime('First failure of the current unbroken run of failures'),
    disabled_at: DateTime('When the destination was disabled'),
    last_success_at: DateTime('Last successful delivery (updated at most every few seconds)'),
    last_failure_at: DateTime('Last failed attempt'),
    held_events: Type.Integer({
      description: 'Events held back (no destination, or disabled); sent when enabled',
    }),
    previous_secret_expires_at: DateTime('After a rotation, until when the previous secret also signs'),
    failing_after_seconds: Type.Integer({ description: 'Continuous failure before status becomes failing' }),
    disable_after_seconds: Type.Integer({
      description: 'Continuous failure before the destination is disabled',
    }),
  },
  { title: 'WebhookDestination' },
);

export const PutDestinationBody = Type.Object(
  {
    // One `type` list rather than anyOf: the validator coerces types, and under anyOf it would
    // turn null into "" (string first) or "" into null (null first).
    url: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        maxLength: 2048,
        description:
          'Production: https, and the host must resolve only to public addresses. Sandbox: any http(s) URL. ' +
          'null removes the URL: events are held, as before a URL was set, until one is',
      }),
    ),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'Default true. true (re-)enables the destination and replays held events; false pauses deliveries',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ url: 'https://example.com/webhook', enabled: true }] },
);

export const PutDestinationResponse = Type.Object({
  ...Destination.properties,
  replayed: Type.Integer({ description: 'Held events queued for delivery by this change' }),
});

export const RotatedSecret = Type.Object({
  secret: Type.String({
    description: 'The new signing secret (whsec_…); shown only this once',
    examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  }),
  previous_secret_expires_at: Type.String({
    description: 'The previous secret signs alongside the new one until then',
  }),
});

export const Queued = Type.Object({
  status: Type.Literal('queued'),
  event_id: Type.String({ description: 'Sent as the webhook-id header' }),
});

export const DeliveriesQuery = Type.Object({
  status: Type.Optional(Type.String({ description: `One of ${WEBHOOK_EVENT_STATUSES.join(', ')}` })),
  type: Type.Optional(Type.String({ description: 'Event type, e.g. sleep or healthcheck' })),
  user_id: Type.Optional(Type.String()),
  since: Type.Optional(Type.String({ description: 'ISO 8601 date-time; events created at or after it' })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 50 })),
});

const Attempt = Type.Object({
  attempt: Type.Integer({ description: 'Counts every attempt of the event, replays included' }),
  url: Type.String(),
  attempted_at: Type.String(),
  duration_ms: Type.Integer(),
  status_code: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null when no HTTP answer came back',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'e.g. HTTP 503, ETIMEDOUT, ECONNREFUSED' }),
  outcome: Type.Union([
    Type.Literal('delivered'),
    Type.Literal('retry'),
    Type.Literal('rejected'),
    Type.Literal('failed'),
  ]),
  next_attempt_at: DateTime('When the next attempt is due, for outcome retry'),
});

export const Delivery = Type.Object(
  {
    event_id: Type.String(),
    type: Type.String(),
    user_id: Type.Union([Type.String(), Type.Null()]),
    reference: Type.Union([Type.String(), Type.Null()]),
    status: Type.String({
      description:
        'pending (queued or waiting to retry), delivered, rejected (4xx, redirect or forbidden destination; not retried), ' +
        'failed (every scheduled attempt failed), held (no destination, or disabled), dropped (user inactive, deauthenticated or deleted)',
    }),
    attempt_count: Type.Integer(),
    created_at: Type.String(),
    updated_at: Type.String(),
    delivered_at: DateTime('When a 2xx came back'),
    next_attempt_at: DateTime('Next attempt, while pending'),
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    attempts: Type.Array(Attempt),
  },
  { title: 'WebhookDelivery' },
);

export const DeliveriesResponse = Type.Object({
  deliveries: Type.Array(Delivery),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next (older) page',
  }),
});

export const EventParams = Type.Object({ event_id: Type.String({ maxLength: 100 }) });

export const Resent = Type.Object({
  status: Type.Literal('queued'),
  event_id: Type.String(),
  deliveries: Type.Integer({
    description: 'Deliveries queued again (one per destination the event went to)',
  }),
});

// The destinations API.

export const DestinationId = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  maxLength: 36,
  description: 'The destination id (a UUID)',
  examples: ['0b8f1c2e-5d6a-4e7b-9c1d-2f3a4b5c6d7e'],
});

export const DestinationParams = Type.Object({ id: DestinationId });

const EventTypes = Type.Union(
  [
    Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_.]{0,63}$', examples: ['sleep'] }), {
      minItems: 1,
      maxItems: 50,
    }),
    Type.Null(),
  ],
  {
    description:
      "The event types (the body's `type`, e.g. sleep, daily, activity, auth) it receives; null or absent: every type",
    examples: [['sleep']],
  },
);
export const DestinationEventParams = Type.Object({
  id: DestinationId,
  event_id: Type.String({ maxLength: 100 }),
});

const CREATE_EXAMPLE = {
  kind: 'postgresql',
  name: 'warehouse',
  settings: { url: 'postgres://tributary:secret@db.example.com:5432/analytics', schema: 'tributary' },
};

export const CreateDestinationBody = Type.Object(
  {
    kind: Type.Union(
      KIND_NAMES.map((kind) => Type.Literal(kind)),
      { description: 'Where events go: webhook (signed HTTP POST), postgresql, s3 or nats (JetStream)' },
    ),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Your label for it' })),
    settings: Type.Object(
      {},
      {
        additionalProperties: true,
        description: "The kind's settings, checked by its adapter against its schema",
      },
    ),
    event_types: Type.Optional(EventTypes),
  },
  { additionalProperties: false, examples: [CREATE_EXAMPLE] },
);

/**
 * The create body as the API document shows it: one variant per kind, its settings the kind's
 * schema (what the adapter checks). Documentation only (see the module comment).
 */
export const CreateDestinationDoc = Type.Union(
  KIND_NAMES.map((kind) =>
    Type.Object(
      {
        ...CreateDestinationBody.properties,
        kind: Type.Literal(kind),
        settings: KIND_SETTINGS.get(kind)!,
      },
      { additionalProperties: false, description: `kind ${kind}` },
    ),
  ),
  { description: 'A kind plus its settings (docs/destinations.md)', examples: [CREATE_EXAMPLE] },
);

export const PatchDestinationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    settings: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'Merged over the stored settings (secrets need not be sent again), then checked as on creation',
        },
      ),
    ),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'true (re-)enables it, clears its failure streak and sends its held events; false holds its events',
      }),
    ),
    event_types: Type.Optional(EventTypes),
  },
  { additionalProperties: false, examples: [{ enabled: true }] },
);

export const DestinationBody = Type.Object(
  {
    id: DestinationId,
    kind: Type.String({ examples: ['postgresql'] }),
    name: Type.Union([Type.String(), Type.Null()]),
    primary: Type.Boolean({
      description: 'The primary webhook: the one /v2/webhook manages (it cannot be deleted)',
    }),
    event_types: EventTypes,
    settings: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The settings without secrets (passwords in URLs show as ***, secret keys are left out)',
        examples: [{ url: 'postgres://tributary:***@db.example.com:5432/analytics', schema: 'tributary' }],
      },
    ),
    status: Type.Union([Type.Literal('active'), Type.Literal('failing'), Type.Literal('disabled')], {
      description:
        'active: delivering. failing: every attempt has failed for longer than the failing threshold (still delivering). ' +
        'disabled: failing for longer than the disable threshold, or disabled by you; events are held until it is enabled',
    }),
    enabled: Type.Boolean(),
    recent_failures: Type.Integer({ description: 'Failed attempts in the last 24 hours' }),
    consecutive_failures: Type.Integer(),
    failing_since: DateTime('First failure of the current unbroken run of failures'),
    disabled_at: DateTime('When it was disabled'),
    last_success_at: DateTime('Last successful delivery'),
    last_failure_at: DateTime('Last failed attempt'),
    held_events: Type.Integer({ description: 'Events held back (disabled or suspended); sent when enabled' }),
    created_at: Type.String({ examples: ['2025-01-01T12:00:00.000000+00:00'] }),
    secret: Type.Optional(
      Type.String({
        description:
          "A new secondary webhook's signing secret, returned only in the creation's answer (as /v2/webhook's)",
      }),
    ),
  },
  { title: 'Destination' },
);

export const PatchDestinationResponse = Type.Object({
  ...DestinationBody.properties,
  replayed: Type.Integer({ description: 'Held events queued for delivery by this change' }),
});

export const DestinationList = Type.Object({ destinations: Type.Array(DestinationBody) });

export const DestinationQueued = Type.Object({
  status: Type.Literal('queued'),
  event_id: Type.String({ description: "The event's id in this destination's log" }),
});
