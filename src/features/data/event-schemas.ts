// JSON Schemas of the data feature's webhook events, as events.ts builds them, for the OpenAPI
// document's `webhooks` section. Records are referenced by their model `$id` (the document's shared
// schemas). They describe the payloads; they build none.
import Type, { type TSchema } from 'typebox';
import { Athlete, dataTypes } from '../../model/index.ts';
import { PlannedWorkout } from '../../model/planned-workout-current.ts';
import { ModelVersionSchema, WebhookUserSchema } from '../connections/webhook-user-schema.ts';
import { DATA_EVENT_NAMES, DATA_EVENT_TYPES, type DataWebhookEvent } from './events.ts';
import { modelRef } from './schemas.ts';

const Reference = Type.String({
  description:
    'The data request that caused this event (also the service-reference header); absent on provider pushes',
});

// Planned workouts travel in their current wire form, not as the provider-side body.
const recordSchema = (type: (typeof DATA_EVENT_TYPES)[number]) =>
  type === 'plannedWorkout' ? PlannedWorkout : dataTypes[type].schema;

const dataEvent = (type: (typeof DATA_EVENT_TYPES)[number]) => {
  const name = DATA_EVENT_NAMES[type];
  return Type.Object(
    {
      type: Type.Literal(name),
      user: WebhookUserSchema,
      data: Type.Array(modelRef(recordSchema(type))),
      version: ModelVersionSchema,
      reference: Type.Optional(Reference),
    },
    {
      title: name,
      description: `${name} records of one user: pushed when the provider has new data, or the answer to a read with to_webhook=true.`,
    },
  );
};

export const dataEventSchemas: Record<DataWebhookEvent['type'], TSchema> = {
  ...(Object.fromEntries(
    DATA_EVENT_TYPES.map((type): [string, TSchema] => [DATA_EVENT_NAMES[type], dataEvent(type)]),
  ) as Record<(typeof DATA_EVENT_NAMES)[(typeof DATA_EVENT_TYPES)[number]], TSchema>),
  athlete: Type.Object(
    {
      type: Type.Literal('athlete'),
      user: WebhookUserSchema,
      athlete: modelRef(Athlete),
      version: ModelVersionSchema,
      reference: Type.Optional(Reference),
    },
    { title: 'athlete', description: 'The user’s profile at the provider.' },
  ),
  large_request_processing: Type.Object(
    {
      type: Type.Literal('large_request_processing'),
      status: Type.Literal('processing'),
      message: Type.String(),
      user: WebhookUserSchema,
      reference: Type.String({ description: 'Carried by every chunk that follows' }),
    },
    {
      title: 'large_request_processing',
      description: 'A data answer too large for one payload (or over 28 days) is coming in chunks.',
    },
  ),
  large_request_sending: Type.Object(
    {
      type: Type.Literal('large_request_sending'),
      message: Type.String(),
      user: WebhookUserSchema,
      reference: Type.String({ description: 'Carried by every chunk that follows' }),
      expected_payloads: Type.Integer({
        minimum: 1,
        description: 'How many data events carry this reference',
      }),
    },
    { title: 'large_request_sending', description: 'How many chunked data events follow.' },
  ),
  data_deleted: Type.Object(
    {
      type: Type.Literal('data_deleted'),
      status: Type.Literal('warning'),
      message: Type.String(),
      user: WebhookUserSchema,
      data_type: Type.Union(
        DATA_EVENT_TYPES.map((type) => Type.Literal(type)),
        { description: 'The data type of the deleted records' },
      ),
      deleted: Type.Array(
        Type.Object(
          {
            metadata: Type.Object(
              {},
              {
                additionalProperties: true,
                description: 'The metadata the record was sent with (summary_id or id, start and end)',
              },
            ),
          },
          { additionalProperties: false },
        ),
      ),
      version: ModelVersionSchema,
    },
    {
      title: 'data_deleted',
      description:
        'Records the provider deleted, removed here too. Activities and days are announced instead in their own data event, each record marked upload_type 4 (Delete).',
    },
  ),
  rate_limit_hit: Type.Object(
    {
      type: Type.Literal('rate_limit_hit'),
      user: WebhookUserSchema,
      start_date: Type.String(),
      end_date: Type.String(),
      retrying_at: Type.String({ description: 'When the request will be tried again' }),
      message: Type.String(),
    },
    { title: 'rate_limit_hit', description: 'The provider rate-limited a request; it will be retried.' },
  ),
};
