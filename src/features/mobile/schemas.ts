import Type from 'typebox';

export const SdkConnectBody = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The single-use token from /v2/auth/generateAuthToken',
    }),
    resource: Type.String({ description: 'APPLE, HEALTH_CONNECT or SAMSUNG' }),
    reference_id: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    device: Type.Optional(
      Type.Union([
        Type.Object(
          {},
          { additionalProperties: true, description: 'What the app knows of the device (model, OS)' },
        ),
        Type.Null(),
      ]),
    ),
  },
  {
    examples: [
      {
        token: '3f1c9a7e5b2d4c8e9a1b6d0f7e2c4a8b',
        resource: 'APPLE',
        reference_id: 'your-user-42',
        device: { model: 'iPhone15,2', os: 'iOS 18.1' },
      },
    ],
  },
);

export const SdkConnectResponse = Type.Object({
  status: Type.Literal('success'),
  user_id: Type.String(),
  upload_token: Type.String({
    description:
      'Secret of this connection for POST /v2/sdk/upload (Bearer); keep it in the keychain. Revoked by deauthentication.',
  }),
});

export const SdkUploadBody = Type.Object(
  {
    platform: Type.String({ description: 'APPLE, HEALTH_CONNECT or SAMSUNG: the connection’s platform' }),
    records: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    workouts: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    activity_summaries: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    deletions: Type.Optional(Type.Array(Type.String({ maxLength: 200 }))),
  },
  {
    additionalProperties: true,
    description:
      'The platform’s own records (docs/mobile.md#the-upload-format): HealthKit export attributes for APPLE, ' +
      'Health Connect record JSON for HEALTH_CONNECT and SAMSUNG; deletions are record ids.',
    examples: [
      {
        platform: 'APPLE',
        records: [
          {
            uuid: '5E4C2B0A-9D1F-4B7A-8C3E-2F6D1A9B7C40',
            type: 'HKQuantityTypeIdentifierStepCount',
            sourceName: 'Ann’s Apple Watch',
            unit: 'count',
            value: 1520,
            startDate: '2025-01-01 08:00:00 +0000',
            endDate: '2025-01-01 09:00:00 +0000',
          },
        ],
        deletions: [],
      },
    ],
  },
);

export const SdkUploadAccepted = Type.Object({
  status: Type.Literal('accepted'),
  upload_id: Type.String(),
  user_id: Type.String(),
  items: Type.Integer({
    description: 'Records, workouts, summaries and deletions received; normalized asynchronously',
  }),
  rejected: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'Position of the record in its list' }),
      problem: Type.String({ description: 'The list and why, e.g. `records[3]: implausible: start …`' }),
    }),
    {
      description:
        'Records refused (unreadable, dates outside 1900-01-01 … now + 1 year, values outside physical ' +
        'ranges); the other records of the upload are taken. The first 100; rejected_count has them all.',
    },
  ),
  rejected_count: Type.Integer({ description: 'How many records were refused' }),
});

export const ImportParams = Type.Object({
  format: Type.String({ description: 'apple-health', examples: ['apple-health'] }),
});
export const ImportQuery = Type.Object({
  user_id: Type.Optional(Type.String()),
  reference_id: Type.Optional(Type.String({ maxLength: 255 })),
});
export const ImportStatusParams = Type.Object({ import_id: Type.String() });

export const ImportStatus = Type.Object({
  import_id: Type.String(),
  user_id: Type.String(),
  status: Type.Union([
    Type.Literal('queued'),
    Type.Literal('running'),
    Type.Literal('completed'),
    Type.Literal('failed'),
  ]),
  bytes_read: Type.Integer({ description: 'Bytes of export.xml read so far' }),
  total_bytes: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Size of export.xml (inflated, for a zip)',
  }),
  records_read: Type.Integer({ description: 'Data elements (Record, Workout, ActivitySummary) read' }),
  records_imported: Type.Integer({ description: 'Data elements stored' }),
  error: Type.Optional(Type.String({ description: 'Why the import failed' })),
});
