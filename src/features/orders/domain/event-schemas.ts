// JSON Schemas of the order webhooks, as events.ts builds them, for the OpenAPI document's
// `webhooks` section. They describe the payloads; they build none.
import Type, { type TSchema } from 'typebox';
import { ESCALATION_LEVELS, type OrderWebhookEventType } from './events.ts';
import { ORDER_STATUSES, RESULTS_STATUSES } from './statuses.ts';

const literals = (values: readonly string[], description: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { description },
  );

const Identity = {
  event_id: Type.String({ description: 'Stable across redeliveries (also X-Terra-Trace-Id): dedupe on it' }),
  timestamp: Type.Integer({ description: 'Unix seconds' }),
};

export const orderEventSchemas: Record<OrderWebhookEventType, TSchema> = {
  'order.status_changed': Type.Object(
    {
      event_type: Type.Literal('order.status_changed'),
      ...Identity,
      data: Type.Object({
        order_id: Type.String(),
        status: literals(ORDER_STATUSES, 'The order’s new status'),
        tracking_number: Type.Optional(Type.String()),
        supplier_item_id: Type.Optional(Type.String({ description: 'The kit id; sandbox only' })),
      }),
    },
    { title: 'order.status_changed', description: 'An order moved to a new status.' },
  ),
  'order_item.results_status_change': Type.Object(
    {
      event_type: Type.Literal('order_item.results_status_change'),
      ...Identity,
      data: Type.Object({
        order_id: Type.String(),
        order_item_id: Type.String(),
        variant_id: Type.String(),
        results_status: literals(
          RESULTS_STATUSES.filter((status) => status !== 'results.awaiting_sample'),
          'The item’s new results status',
        ),
        test_taker: Type.Object(
          {
            test_taker_id: Type.String(),
            first_name: Type.String(),
            last_name: Type.String(),
            email: Type.String(),
            phone_number: Type.String({ description: 'E.164', examples: ['+14155550100'] }),
          },
          { additionalProperties: false },
        ),
        escalation_level: Type.Optional(literals(ESCALATION_LEVELS, 'Only on results.escalation_raised')),
        acknowledgment_due_by: Type.Optional(
          Type.String({ description: 'Only on results.escalation_raised' }),
        ),
        failure_cause: Type.Optional(Type.String({ description: 'Only on results.sample_rejected' })),
      }),
    },
    {
      title: 'order_item.results_status_change',
      description: 'An order item’s results moved to a new status.',
    },
  ),
};
