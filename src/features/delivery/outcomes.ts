// Where given events stand in the delivery log, for features that keep their own index of the
// events they emitted (the order API's delivery outcomes and overview). Read-only: the log stays
// the webhook engine's.
import type { Db } from '../../store/db.ts';
import type { WebhookEventStatus } from './tables.ts';

export type DeliveryOutcome = {
  eventId: string;
  status: WebhookEventStatus;
  attempts: number;
  lastStatusCode: number | null;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
};

const SLICE = 1000;

/**
 * The state of each of these events' delivery to the developer's primary webhook, by event id
 * (absent: unknown).
 */
export async function deliveryOutcomes(
  db: Db,
  developerId: string,
  eventIds: readonly string[],
): Promise<Map<string, DeliveryOutcome>> {
  const rows = [];
  // Bounded statements: a long window can name many events.
  for (let from = 0; from < eventIds.length; from += SLICE) {
    rows.push(
      ...(await db
        .selectFrom('deliveries')
        .select([
          'event_id as id',
          'status',
          'attempts',
          'last_status_code',
          'created_at',
          'updated_at',
          'delivered_at',
        ])
        .where('developer_id', '=', developerId)
        .where('destination_id', 'is', null)
        .where('event_id', 'in', eventIds.slice(from, from + SLICE))
        .execute()),
    );
  }
  return new Map(
    rows.map((row) => [
      row.id,
      {
        eventId: row.id,
        status: row.status,
        attempts: row.attempts,
        lastStatusCode: row.last_status_code,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        deliveredAt: row.delivered_at,
      },
    ]),
  );
}
