// Route schemas of the data API. Records are referenced by their model `$id` (registered once
// as shared schemas), so the OpenAPI document carries each model a single time.
import Type, { type TSchema } from 'typebox';
import { type DataTypeName, dataTypeNames, dataTypes } from '../../model/index.ts';
import { User } from '../connections/schemas.ts';
import { DATA_SENT_MESSAGE, LARGE_REQUEST_MESSAGE } from './reads.ts';

export const modelRef = (schema: TSchema) => Type.Ref((schema as TSchema & { $id: string }).$id);

const DATE_HELP = 'YYYY-MM-DD or 10-digit unix seconds';
const UserId = Type.String({ description: 'UUID of the user (connection)' });
export const StartDate = Type.String({
  description: `${DATE_HELP}; inclusive. A date selects records anchored on that local day or later`,
  examples: ['2024-01-01', '1704067200'],
});
export const EndDate = Type.String({
  description:
    `${DATE_HELP}; exclusive, so 2024-01-01..2024-01-31 is 30 days (and costs 30 days of budget). ` +
    'Default: now (through today for a date start_date)',
  examples: ['2024-01-31'],
});
export const ToWebhook = (fallback: boolean) =>
  Type.String({
    description: `true or false (default ${fallback}). true: answer at once with a reference and send the data as data events`,
    examples: [String(fallback)],
  });
export const WithSamples = Type.String({
  description: 'true or false (default false). false: every sample / time-series array is empty',
  examples: ['false'],
});

export function readQuery(type: DataTypeName) {
  return Type.Object({
    user_id: UserId,
    start_date: StartDate,
    end_date: Type.Optional(EndDate),
    to_webhook: Type.Optional(ToWebhook(true)),
    ...(dataTypes[type].acceptsWithSamples ? { with_samples: Type.Optional(WithSamples) } : {}),
  });
}

export const AthleteQuery = Type.Object({ user_id: UserId, to_webhook: Type.Optional(ToWebhook(true)) });

export const V3Params = Type.Object({
  user_id: UserId,
  type: Type.Union(
    dataTypeNames.map((name) => Type.Literal(name)),
    { description: 'The historical data type' },
  ),
});

export const V3Query = Type.Object({
  start_date: StartDate,
  end_date: Type.Optional(EndDate),
  to_webhook: Type.Optional(ToWebhook(false)),
  with_samples: Type.Optional(
    Type.String({ description: 'true or false (default false); not accepted for plannedWorkout' }),
  ),
});

export const Connection = Type.Object(
  {
    id: Type.String({ description: 'The user_id of this connection' }),
    reference_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
    provider: Type.String(),
    last_polled_at: Type.Union([Type.String(), Type.Null()]),
    last_updated_at: Type.Union([Type.String(), Type.Null()]),
    most_recent_data_at: Type.Union([Type.String(), Type.Null()]),
    scopes: Type.Array(Type.String()),
  },
  { title: 'Connection' },
);

function acknowledgement(owner: 'user' | 'connection') {
  return Type.Object(
    {
      status: Type.Literal('success'),
      type: Type.String({ description: 'The data type requested' }),
      reference: Type.String({
        description: 'Carried by every resulting webhook (service-reference header too)',
      }),
      trace_id: Type.String({ description: 'Same as reference' }),
      message: Type.String({ examples: [DATA_SENT_MESSAGE, LARGE_REQUEST_MESSAGE] }),
      ...(owner === 'user' ? { user: User } : { connection: Connection }),
    },
    {
      title: 'DataSentToWebhook',
      description:
        'to_webhook=true: the data follows as data events with this reference; a range over 28 days is preceded ' +
        'by large_request_processing and large_request_sending {expected_payloads} and sent in chunks',
    },
  );
}

export function readResponse(type: DataTypeName) {
  return Type.Union([
    Type.Object({ user: User, data: Type.Array(modelRef(dataTypes[type].schema)), type: Type.Literal(type) }),
    acknowledgement('user'),
  ]);
}

export const V3Response = Type.Union([
  Type.Object({
    connection: Connection,
    data: Type.Array(
      Type.Union([
        ...dataTypeNames
          .filter((name) => name !== 'plannedWorkout')
          .map((name) => modelRef(dataTypes[name].schema)),
        Type.Ref('PlannedWorkout'),
      ]),
      { description: 'Records of the requested type (plannedWorkout: the current PlannedWorkout object)' },
    ),
    type: Type.String(),
  }),
  acknowledgement('connection'),
]);

export const AthleteResponse = Type.Union([
  Type.Object({
    athlete: Type.Union([Type.Ref('Athlete'), Type.Null()]),
    user: User,
    type: Type.Literal('athlete'),
  }),
  acknowledgement('user'),
]);
