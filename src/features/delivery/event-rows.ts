// Data access for the outbox's events (stored once, `events`) and their deliveries (one per event
// × destination, `deliveries`): storing a batch of them, and reading them back as the engine sends
// them. Every function takes the Db or transaction it runs in. Batch writes go out as one
// statement per batch, because the delivery engine stores thousands of events a second.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import {
  booleanArrayLiteral,
  nullableTextArrayLiteral,
  numberArrayLiteral,
} from '../../store/array-literals.ts';
import { textArrayLiteral } from '../../store/text-array.ts';
import type { EventsTable, WebhookEventStatus } from './tables.ts';

/** An event as stored: every column but the sequence number the database assigns. */
export type NewEventRow = Omit<EventsTable, 'seq'>;

export type NewDeliveryRow = {
  id: string;
  event_id: string;
  developer_id: string;
  /** Null: the developer's primary webhook; else the destination. */
  destination_id: string | null;
  status: WebhookEventStatus;
  last_error: string | null;
  awaiting_job: boolean;
  created_at: Date;
  updated_at: Date;
};

/**
 * Stores events and their deliveries, in order, as one statement with one array parameter per
 * column (unnest): a bulk emit of 500 events bound 6,000 parameters as a VALUES list, which cost
 * more to build, send and parse than the rows themselves.
 */
export async function insertEvents(
  db: Db,
  events: NewEventRow[],
  deliveries: NewDeliveryRow[],
): Promise<void> {
  if (events.length === 0) return;
  // No foreign key checks a delivery's event any more (migration 0050): the reference holds
  // because a delivery is stored only with its event, which this makes sure of.
  const stored = new Set<string>();
  for (const event of events) stored.add(event.id);
  for (const delivery of deliveries) {
    if (!stored.has(delivery.event_id))
      throw new Error(`delivery ${delivery.id} names an event not stored with it`);
  }
  // Each column as one array literal built here (store/array-literals.ts): node-postgres escapes
  // every element of an array parameter with two regular-expression replacements; timestamps go
  // as epoch milliseconds. Bodies are JSON.stringify's output, which never holds a raw line feed:
  // they go as one text a line, split by PostgreSQL, with none of their quotes backslashed (issue
  // 44: a data event of an import's rebuild carries its records whole).
  const bodyList = new Array<string>(events.length);
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    if (event.body.includes('\n')) throw new Error(`event ${event.id}'s body holds a line feed`);
    bodyList[index] = event.body;
  }
  const bodies = bodyList.join('\n');
  const e = events;
  const d = deliveries;
  const text = <R>(rows: readonly R[], value: (row: R) => string) => textArrayLiteral(rows.map(value));
  const nullableText = <R>(rows: readonly R[], value: (row: R) => string | null) =>
    nullableTextArrayLiteral(rows.map(value));
  const epochMs = <R>(rows: readonly R[], value: (row: R) => Date) =>
    numberArrayLiteral(rows.map((row) => value(row).getTime()));
  const flags = <R>(rows: readonly R[], value: (row: R) => boolean) => booleanArrayLiteral(rows.map(value));
  await sql`
    WITH stored AS (
      INSERT INTO events (id, developer_id, type, user_id, reference, suppressible, body, created_at)
      SELECT u.id, u.developer_id, u.type, u.user_id, u.reference, u.suppressible, u.body,
        to_timestamp(u.created_ms / 1000)
      FROM unnest(
        ${text(e, (r) => r.id)}::text[], ${text(e, (r) => r.developer_id)}::text[],
        ${text(e, (r) => r.type)}::text[], ${nullableText(e, (r) => r.user_id)}::text[],
        ${nullableText(e, (r) => r.reference)}::text[], ${flags(e, (r) => r.suppressible)}::boolean[],
        string_to_array(${bodies}::text, chr(10)), ${epochMs(e, (r) => r.created_at)}::float8[])
        AS u (id, developer_id, type, user_id, reference, suppressible, body, created_ms))
    INSERT INTO deliveries (id, event_id, developer_id, destination_id, status, last_error, awaiting_job,
      created_at, updated_at)
    SELECT u.id, u.event_id, u.developer_id, u.destination_id, u.status, u.last_error, u.awaiting_job,
      to_timestamp(u.created_ms / 1000), to_timestamp(u.updated_ms / 1000)
    FROM unnest(
      ${text(d, (r) => r.id)}::text[], ${text(d, (r) => r.event_id)}::text[],
      ${text(d, (r) => r.developer_id)}::text[], ${nullableText(d, (r) => r.destination_id)}::uuid[],
      ${text(d, (r) => r.status)}::text[], ${nullableText(d, (r) => r.last_error)}::text[],
      ${flags(d, (r) => r.awaiting_job)}::boolean[], ${epochMs(d, (r) => r.created_at)}::float8[],
      ${epochMs(d, (r) => r.updated_at)}::float8[])
      AS u (id, event_id, developer_id, destination_id, status, last_error, awaiting_job, created_ms,
        updated_ms)`.execute(db);
}

/** A delivery with its event, as the engine sends it. `id` is the delivery's; `event_id` goes on the wire. */
export type DeliverableEvent = {
  id: string;
  event_id: string;
  developer_id: string;
  destination_id: string | null;
  created_at: Date;
  type: string;
  user_id: string | null;
  reference: string | null;
  suppressible: boolean;
  body: string;
  status: WebhookEventStatus;
  generation: number;
  attempts: number;
};

export async function findEventsForDelivery(db: Db, ids: readonly string[]): Promise<DeliverableEvent[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.event_id',
      'd.developer_id',
      'd.destination_id',
      // Whole epoch milliseconds (what a Date holds), made a Date below: parsing the timestamp's
      // text (postgres-date: a regular expression and its match per row) was ~0.8 KB of garbage
      // per delivery in the engine's heap profile (issue 44).
      sql<number>`floor(extract(epoch from e.created_at) * 1000)::float8`.as('created_at'),
      'e.type',
      'e.user_id',
      'e.reference',
      'e.suppressible',
      'e.body',
      'd.status',
      'd.generation',
      'd.attempts',
    ])
    // One array parameter, not a parameter per id: a batch names up to 1,250 deliveries.
    .where(sql<boolean>`d.id = any(${textArrayLiteral(ids)}::text[])`)
    .execute();
  // (The rows made events in place: no second object per row.)
  const events = rows as unknown as DeliverableEvent[];
  for (let index = 0; index < rows.length; index++)
    events[index]!.created_at = new Date(rows[index]!.created_at);
  return events;
}
