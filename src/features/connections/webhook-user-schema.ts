// The JSON Schema of the `user` object user-scoped webhook events carry (webhook-user.ts builds it),
// for the OpenAPI document's `webhooks` section. It describes the builder's output; it builds nothing.
import Type from 'typebox';
import { WEBHOOK_MODEL_VERSION } from './webhook-user.ts';
import { exampleProviderId } from '../../provider-access/example-ids.ts';

const WireTime = (description: string) =>
  Type.Union([Type.String({ examples: ['2025-01-01T12:00:00.000000+00:00'] }), Type.Null()], { description });

export const WebhookUserSchema = Type.Object(
  {
    user_id: Type.String({
      description: 'The connection’s id',
      examples: ['8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41'],
    }),
    provider: Type.String({ description: 'Provider id, upper case', examples: [exampleProviderId('watch')] }),
    last_webhook_update: WireTime('When the provider last pushed data for this user'),
    scopes: Type.Union([Type.String({ examples: ['activity,sleep'] }), Type.Null()], {
      description: 'Granted scopes, comma separated',
    }),
    reference_id: Type.Union([Type.String({ examples: ['your-user-42'] }), Type.Null()], {
      description: 'Your own id for the person, as given when connecting',
    }),
    active: Type.Boolean({ description: 'false once the user receives no more data' }),
    created_at: WireTime('When the connection was made'),
  },
  { title: 'WebhookUser', additionalProperties: false },
);

/** The data-model version some events carry. */
export const ModelVersionSchema = Type.Literal(WEBHOOK_MODEL_VERSION, {
  description: 'Version of the data model the payload follows',
});

export const exampleWebhookUser = {
  user_id: '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41',
  provider: exampleProviderId('watch'),
  last_webhook_update: '2025-01-02T08:00:00.000000+00:00',
  scopes: 'activity,sleep',
  reference_id: 'your-user-42',
  active: true,
  created_at: '2025-01-01T12:00:00.000000+00:00',
};
