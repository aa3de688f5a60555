import Type from 'typebox';
import { BULK_MAX_USERS, SUBSCRIPTIONS_DEFAULT_PER_PAGE, SUBSCRIPTIONS_MAX_PER_PAGE } from './service.ts';

const DateTime = (description: string) =>
  Type.Union([Type.String({ examples: ['2025-01-01T12:00:00.000000+00:00'] }), Type.Null()], { description });

export const User = Type.Object(
  {
    user_id: Type.String({ description: 'UUID of this connection' }),
    provider: Type.String({ description: 'Provider id (see /v2/integrations)' }),
    last_webhook_update: DateTime('Last webhook sent for this user: ISO 8601, microseconds, UTC offset'),
    scopes: Type.Union([Type.String(), Type.Null()], {
      description: 'Granted scopes, comma-separated, when known',
    }),
    reference_id: Type.Union([Type.String(), Type.Null()]),
    active: Type.Boolean({ description: 'Inactive users receive no data updates' }),
    created_at: Type.String({ description: 'ISO 8601, microseconds, UTC offset' }),
  },
  { title: 'User' },
);

const DetailedUser = Type.Object({
  ...User.properties,
  last_polled_at: DateTime('Last time the provider was polled for this user'),
  most_recent_data_at: DateTime('Most recent data received for this user'),
});

export const UserInfoQuery = Type.Object({
  user_id: Type.Optional(
    Type.String({
      description: 'UUID; takes precedence over reference_id',
      examples: ['8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41'],
    }),
  ),
  reference_id: Type.Optional(
    Type.String({ description: 'Returns every user with this reference, as an array' }),
  ),
});

export const UserInfoResponse = Type.Union([
  Type.Object({ status: Type.Literal('success'), user: DetailedUser, is_authenticated: Type.Boolean() }),
  Type.Array(User),
]);

export const SubscriptionsQuery = Type.Object({
  page: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Zero-based; without it every user comes back at once' }),
  ),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: SUBSCRIPTIONS_MAX_PER_PAGE,
      description: `Default ${SUBSCRIPTIONS_DEFAULT_PER_PAGE}, maximum ${SUBSCRIPTIONS_MAX_PER_PAGE}; used with page`,
    }),
  ),
});

export const SubscriptionsResponse = Type.Union([
  Type.Object({ status: Type.Literal('success'), users: Type.Array(User) }),
  Type.Object({
    status: Type.Literal('success'),
    data: Type.Object({
      next: Type.Union([Type.Integer(), Type.Null()]),
      max_page: Type.Integer(),
      results: Type.Array(User),
    }),
  }),
]);

export const BulkUserInfoBody = Type.Array(Type.String(), {
  maxItems: BULK_MAX_USERS,
  description: `User ids (at most ${BULK_MAX_USERS}); ids that are unknown are left out of the answer`,
  examples: [['8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41', '0b6f3e1a-7c2d-4f59-8e3a-5d1c9b2a7e64']],
});

export const BulkUserInfoResponse = Type.Array(User);

export const UserParams = Type.Object({ user_id: Type.String() });

export const UpdateUserBody = Type.Object(
  {
    reference_id: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, examples: [{ reference_id: 'your-user-42', active: true }] },
);

export const UpdateUserResponse = Type.Object({ status: Type.Literal('success'), user: User });
