// The JSON Schema of the engine's own event, the healthcheck (events.ts builds it), for the OpenAPI
// document's `webhooks` section. It describes the payload; it builds none.
import Type, { type TSchema } from 'typebox';
import type { HealthcheckEvent } from './events.ts';

export const webhookEventSchemas: Record<HealthcheckEvent['type'], TSchema> = {
  healthcheck: Type.Object(
    {
      type: Type.Literal('healthcheck'),
      status: Type.Literal('success'),
      creation_timestamp: Type.String({ examples: ['2025-01-01T12:00:00.000000+00:00'] }),
      trend_percentage: Type.Number({
        description: 'Change in webhooks sent, last hour against the hour before',
      }),
      sent_webhooks_last_hour: Type.Integer({ minimum: 0 }),
    },
    {
      title: 'healthcheck',
      description: 'Sent on a schedule (and by POST /v2/webhook/test) to check the destination answers.',
    },
  ),
};
