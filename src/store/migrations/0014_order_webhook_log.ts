import { type Kysely, sql } from 'kysely';

/**
 * The order API's index of the webhook events it emitted (features/orders/webhook-log.ts): which
 * order event (its 64-bit event_id), order and item each delivery in the webhook log is about, so
 * `GET /api/v1/webhook-deliveries` and `/overview` read delivery outcomes per order without the
 * webhook engine knowing what an order is.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE order_webhook_events (
      webhook_event_id text PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      order_event_id bigint NOT NULL,
      event_type text NOT NULL,
      order_id text NOT NULL,
      order_item_id text,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`
    CREATE INDEX order_webhook_events_by_developer
    ON order_webhook_events (developer_id, order_event_id DESC)`.execute(db);
  await sql`
    CREATE INDEX order_webhook_events_by_time ON order_webhook_events (developer_id, created_at)`.execute(db);
}
