// TypeBox schemas of the destinations API (`/v2/destinations`, tag `destinations`). A kind's
// settings are checked by its adapter against the kind's own schema (kinds/*.ts), which names the
// setting that is wrong; the route validates `settings` only as an object, because Ajv would answer
// a union's mismatch with a message naming no setting. The API document shows the create body as
// one variant per kind (CreateDestinationDoc, the route's `x-body`) from the same schemas
// (docs/destinations.md).
import Type from 'typebox';
import { KIND_NAMES, KIND_SETTINGS } from './destination-kinds.ts';
import { Delivery } from './schemas.ts';

const DateTime = (description: string) =>
  Type.Union([Type.String({ examples: ['2025-01-01T12:00:00.000000+00:00'] }), Type.Null()], { description });

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

export const DestinationDeliveries = Type.Object({
  deliveries: Type.Array(Delivery),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next (older) page',
  }),
});

export const DestinationQueued = Type.Object({
  status: Type.Literal('queued'),
  event_id: Type.String({ description: "The event's id in this destination's log" }),
});
