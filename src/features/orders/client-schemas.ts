// TypeBox schemas for the developer's own account on the order API: the client and its webhook
// URL, the overview of orders and results, and the log of order webhook deliveries.
import Type from 'typebox';
import { PageLimit } from './schema-parts.ts';

export const ClientResponse = Type.Object(
  {
    client_id: Type.String({ description: 'Your dev-id' }),
    customer_id: Type.String({ description: 'Your dev-id (one account level here)' }),
    webhook_url: Type.String({ description: 'The active destination, or "" when none' }),
  },
  { title: 'ClientResponse' },
);

export const UpdateWebhookUrlBody = Type.Object(
  {
    webhook_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          'The destination for every webhook of this dev-id; "" switches it off. Production: https only, no private addresses',
      }),
    ),
  },
  { examples: [{ webhook_url: 'https://example.com/webhook' }] },
);

export const OverviewQuery = Type.Object({
  since: Type.Optional(Type.String({ description: 'RFC 3339; default: until minus 7 days' })),
  until: Type.Optional(Type.String({ description: 'RFC 3339; default: now' })),
});

export const OverviewResponse = Type.Object(
  {
    orders: Type.Object({
      total: Type.Integer(),
      by_status: Type.Record(Type.String(), Type.Integer(), { description: 'Orders by current status' }),
    }),
    results: Type.Object({
      total: Type.Integer({ description: 'Items of the window’s orders whose results arrived' }),
      missing: Type.Integer({ description: 'Items of delivered orders still waiting for results' }),
    }),
    webhooks: Type.Object({
      failed_total: Type.Integer({ description: 'Order webhooks rejected or dead-lettered' }),
      daily: Type.Array(Type.Object({ date: Type.String(), failed: Type.Integer() })),
    }),
  },
  { title: 'OverviewResponse' },
);

export const DeliveriesQuery = Type.Object({
  outcome: Type.Optional(
    Type.String({
      description:
        'delivered, rejected, invalid, dead_lettered, replayed, or failed (rejected|invalid|dead_lettered)',
    }),
  ),
  limit: PageLimit,
  cursor: Type.Optional(Type.String({ description: 'event_id from the previous page’s next_cursor' })),
});

export const DeliveriesResponse = Type.Object(
  {
    deliveries: Type.Array(
      Type.Object(
        {
          event_id: Type.String(),
          event_type: Type.String(),
          order_id: Type.String(),
          order_item_id: Type.String({ description: 'Empty for order-level events' }),
          outcome: Type.String(),
          final_status_code: Type.Union([Type.Integer(), Type.Null()]),
          attempts: Type.Integer(),
          completed_at: Type.String(),
          event_created_at: Type.String(),
        },
        { title: 'WebhookDelivery' },
      ),
    ),
    next_cursor: Type.Optional(Type.String()),
  },
  { title: 'WebhookDeliveriesResponse' },
);
