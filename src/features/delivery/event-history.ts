// What a developer reads of its events after the fact: deliveries per hour (the dashboard's
// chart), an event's signed body, and a user's events page by page.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { WebhookEventStatus } from './tables.ts';

/** The developer's deliveries since `since`, counted per hour and status (the dashboard's overview chart). */
export async function countEventsByHour(
  db: Db,
  developerId: string,
  since: Date,
): Promise<{ hour: Date; status: WebhookEventStatus; n: number }[]> {
  const rows = await db
    .selectFrom('deliveries')
    .select([
      sql<Date>`date_trunc('hour', created_at)`.as('hour'),
      'status',
      (eb) => eb.fn.countAll<string>().as('n'),
    ])
    .where('developer_id', '=', developerId)
    .where('created_at', '>=', since)
    .groupBy([sql`date_trunc('hour', created_at)`, 'status'])
    .execute();
  return rows.map((row) => ({ hour: new Date(row.hour), status: row.status, n: Number(row.n) }));
}

/** The body an event is delivered with (the exact bytes signed), if it is the developer's. */
export async function findEventBody(
  db: Db,
  developerId: string,
  eventId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('events')
    .select('body')
    .where('developer_id', '=', developerId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  return row?.body;
}

/**
 * One page of the deliveries of events about one user (any status, any destination), each with
 * its event, in `seq` order after `afterSeq`.
 */
export async function eventPageOfUser(
  db: Db,
  developerId: string,
  userId: string,
  afterSeq: number,
  limit: number,
): Promise<
  {
    id: string;
    seq: number;
    type: string;
    status: WebhookEventStatus;
    destination_id: string | null;
    created_at: Date;
    delivered_at: Date | null;
    body: string;
  }[]
> {
  return db
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'e.id',
      'd.seq',
      'e.type',
      'd.status',
      'd.destination_id',
      'e.created_at',
      'd.delivered_at',
      'e.body',
    ])
    .where('d.developer_id', '=', developerId)
    .where('e.user_id', '=', userId)
    .where('d.seq', '>', afterSeq)
    .orderBy('d.seq')
    .limit(limit)
    .execute();
}
