// Data access for the outbox: events (stored once, `events`), their deliveries (one per event ×
// destination, `deliveries`) and the attempt log (`delivery_attempts`). Every function takes the
// Db or transaction it runs in. Batch writes go out as one statement per batch, because the
// delivery engine writes thousands of outcomes a second.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import { textArrayLiteral } from '../../store/text-array.ts';
import type { AttemptOutcome, WebhookEventStatus } from './tables.ts';

export type NewEventRow = {
  id: string;
  developer_id: string;
  type: string;
  user_id: string | null;
  reference: string | null;
  suppressible: boolean;
  body: string;
  created_at: Date;
};

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

/** A column's values as one array parameter (see `insertEvents`). */
const column = <R, V>(rows: readonly R[], value: (row: R) => V): V[] => rows.map(value);
const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

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
  // Bodies are JSON.stringify's output, which never holds a raw line feed: they go as one text a
  // line, split by PostgreSQL, instead of an array literal with every quote of every body
  // backslashed by the driver (issue 44: a data event of an import's rebuild carries its records whole).
  let bodies = '';
  for (const [index, event] of events.entries()) {
    if (event.body.includes('\n')) throw new Error(`event ${event.id}'s body holds a line feed`);
    bodies += index === 0 ? event.body : `\n${event.body}`;
  }
  const e = events;
  const d = deliveries;
  await sql`
    WITH stored AS (
      INSERT INTO events (id, developer_id, type, user_id, reference, suppressible, body, created_at)
      SELECT * FROM unnest(
        ${column(e, (r) => r.id)}::text[], ${column(e, (r) => r.developer_id)}::text[],
        ${column(e, (r) => r.type)}::text[], ${column(e, (r) => r.user_id)}::text[],
        ${column(e, (r) => r.reference)}::text[], ${column(e, (r) => r.suppressible)}::boolean[],
        string_to_array(${bodies}::text, chr(10)), ${column(e, (r) => iso(r.created_at))}::timestamptz[]))
    INSERT INTO deliveries (id, event_id, developer_id, destination_id, status, last_error, awaiting_job,
      created_at, updated_at)
    SELECT * FROM unnest(
      ${column(d, (r) => r.id)}::text[], ${column(d, (r) => r.event_id)}::text[],
      ${column(d, (r) => r.developer_id)}::text[], ${column(d, (r) => r.destination_id)}::uuid[],
      ${column(d, (r) => r.status)}::text[], ${column(d, (r) => r.last_error)}::text[],
      ${column(d, (r) => r.awaiting_job)}::boolean[], ${column(d, (r) => iso(r.created_at))}::timestamptz[],
      ${column(d, (r) => iso(r.updated_at))}::timestamptz[])`.execute(db);
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
  return (
    db
      .selectFrom('deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'd.id',
        'd.event_id',
        'd.developer_id',
        'd.destination_id',
        'e.created_at',
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
      .execute()
  );
}

/** One attempt that went over the wire, for the attempt log. */
export type AttemptRecord = {
  developerId: string;
  number: number;
  url: string;
  attemptedAt: Date;
  durationMs: number;
  outcome: AttemptOutcome;
};

/** The new state of one delivery after an attempt (`attempt` set), or after it was held or dropped without one. */
export type EventOutcome = {
  id: string;
  /** The generation the job was for: a row that moved on meanwhile is left alone. */
  generation: number;
  status: WebhookEventStatus;
  nextAttemptAt: Date | null;
  statusCode: number | null;
  error: string | null;
  at: Date;
  attempt: AttemptRecord | null;
};

/**
 * Applies outcomes and logs their attempts in one statement; returns the ids actually updated
 * (still pending at the generation the job was for). An attempt is logged only with its update,
 * so the log and the event never disagree, and the attempt's delivery exists (no foreign key
 * checks it per row any more: migration 0050).
 */
export async function recordOutcomes(db: Db, outcomes: readonly EventOutcome[]): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  // One array parameter per column (unnest), not a VALUES list of 14 parameters a row.
  const o = outcomes;
  const result = await sql<{ id: string }>`
    WITH v (id, generation, status, attempted, next_attempt_at, status_code, error, at,
            developer_id, attempt, url, attempted_at, duration_ms, outcome) AS (
      SELECT * FROM unnest(
        ${column(o, (x) => x.id)}::text[], ${column(o, (x) => x.generation)}::int[],
        ${column(o, (x) => x.status)}::text[], ${column(o, (x) => x.attempt !== null)}::boolean[],
        ${column(o, (x) => iso(x.nextAttemptAt))}::timestamptz[], ${column(o, (x) => x.statusCode)}::int[],
        ${column(o, (x) => x.error)}::text[], ${column(o, (x) => iso(x.at))}::timestamptz[],
        ${column(o, (x) => x.attempt?.developerId ?? null)}::text[],
        ${column(o, (x) => x.attempt?.number ?? null)}::int[],
        ${column(o, (x) => x.attempt?.url ?? null)}::text[],
        ${column(o, (x) => iso(x.attempt?.attemptedAt))}::timestamptz[],
        ${column(o, (x) => x.attempt?.durationMs ?? null)}::int[],
        ${column(o, (x) => x.attempt?.outcome ?? null)}::text[])),
    updated AS (
      UPDATE deliveries AS e SET
        status = v.status,
        generation = e.generation + 1,
        attempts = e.attempts + CASE WHEN v.attempted THEN 1 ELSE 0 END,
        next_attempt_at = v.next_attempt_at,
        last_status_code = CASE WHEN v.attempted THEN v.status_code ELSE e.last_status_code END,
        last_error = v.error,
        delivered_at = CASE WHEN v.status = 'delivered' THEN v.at ELSE e.delivered_at END,
        held_at = CASE WHEN v.status = 'held' THEN v.at END,
        updated_at = v.at
      FROM v
      -- The rows are found by primary key, from the ids as one array. (Written with IS TRUE, the
      -- pending test cannot use the stuck sweeper's partial index of pending deliveries: a planner
      -- with stale statistics took it and hash-joined every pending delivery to the wave, so each
      -- write cost O(backlog): 114-138 against 56-82 µs of database CPU per outcome, 20,000 queued.)
      WHERE e.id = any(${column(o, (x) => x.id)}::text[]) AND e.id = v.id AND e.generation = v.generation
        AND (e.status = 'pending') IS TRUE
        -- Hold only while the destination still says so: a URL set (and held events released)
        -- after this batch read the destination must not leave the event held with nobody to
        -- release it. The caller sends such an event again instead.
        AND (v.status <> 'held' OR NOT EXISTS (
          SELECT 1 FROM webhook_destinations AS d
          WHERE (CASE WHEN e.destination_id IS NULL
                   THEN d.developer_id = e.developer_id AND d.kind = 'webhook' AND NOT d.secondary
                   ELSE d.id = e.destination_id END)
            AND d.url IS NOT NULL AND d.status <> 'disabled'
            AND d.suspended_at IS NULL))
      RETURNING e.id),
    logged AS (
      INSERT INTO delivery_attempts (delivery_id, developer_id, attempt, url, attempted_at, duration_ms, status_code,
        error, outcome, next_attempt_at)
      SELECT v.id, v.developer_id, v.attempt, v.url, v.attempted_at, v.duration_ms, v.status_code, v.error,
        v.outcome, v.next_attempt_at
      FROM v JOIN updated ON updated.id = v.id
      WHERE v.attempted)
    SELECT id FROM updated`.execute(db);
  return new Set(result.rows.map((row) => row.id));
}

/**
 * Moves an event's deliveries back to pending for a new round of attempts (resend by event id);
 * none when the event is not this developer's.
 */
export async function reschedule(
  db: Db,
  developerId: string,
  eventId: string,
  at: Date,
  /** When given: only the delivery to the primary webhook (null) or to this destination. Else every one. */
  destinationId?: string | null,
): Promise<{ id: string; generation: number }[]> {
  return db
    .updateTable('deliveries')
    .set((eb) => ({
      status: 'pending',
      generation: eb('generation', '+', 1),
      next_attempt_at: at,
      last_error: null,
      held_at: null,
      updated_at: at,
      awaiting_job: false,
    }))
    .where('event_id', '=', eventId)
    .where('developer_id', '=', developerId)
    .$if(destinationId !== undefined, (query) =>
      query.where('destination_id', destinationId ? '=' : 'is', destinationId ?? null),
    )
    .returning(['id', 'generation'])
    .execute();
}

/**
 * Pending deliveries whose attempt came due before `dueBefore` (their job is gone: it ran out of its
 * own retries, say during a database outage), up to `limit`, oldest first: each moves to a new
 * generation, so a job of the old one that turns up after all does nothing. Returns what the new
 * jobs need; `attempts` tells a first attempt from a retry.
 */
export async function rescheduleStuck(
  db: Db,
  dueBefore: Date,
  at: Date,
  limit: number,
): Promise<{ id: string; generation: number; attempts: number }[]> {
  const result = await sql<{ id: string; generation: number; attempts: number }>`
    UPDATE deliveries SET generation = generation + 1, next_attempt_at = ${at}, updated_at = ${at},
      awaiting_job = false
    WHERE id IN (
      SELECT id FROM deliveries
      WHERE status = 'pending' AND updated_at < ${dueBefore}
        AND (next_attempt_at IS NULL OR next_attempt_at < ${dueBefore})
      ORDER BY updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, generation, attempts`.execute(db);
  return result.rows;
}

/**
 * Releases up to `limit` held deliveries of one destination of a developer (`destinationId` null:
 * its primary webhook), oldest first, for delivery.
 */
export async function releaseHeld(
  db: Db,
  developerId: string,
  at: Date,
  limit: number,
  destinationId: string | null,
): Promise<{ id: string; generation: number }[]> {
  const which =
    destinationId === null ? sql`AND destination_id IS NULL` : sql`AND destination_id = ${destinationId}`;
  const result = await sql<{ id: string; generation: number }>`
    UPDATE deliveries SET status = 'pending', generation = generation + 1, next_attempt_at = ${at},
      last_error = NULL, held_at = NULL, updated_at = ${at}, awaiting_job = false
    WHERE id IN (
      SELECT id FROM deliveries WHERE developer_id = ${developerId} ${which} AND held_at IS NOT NULL AND status = 'held'
      ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, generation`.execute(db);
  return result.rows;
}

/** Drops the deliveries of a user's suppressible events that have not gone out yet; returns how many. */
export async function dropPendingSuppressible(
  db: Db,
  userId: string,
  reason: string,
  at: Date,
): Promise<number> {
  const result = await sql`
    UPDATE deliveries AS d SET status = 'dropped', generation = d.generation + 1, last_error = ${reason},
      held_at = NULL, updated_at = ${at}, awaiting_job = false
    FROM events AS e
    WHERE e.id = d.event_id AND e.user_id = ${userId} AND e.suppressible
      AND d.status IN ('pending', 'held')`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Takes up to `limit` deliveries awaiting their first job, oldest first (rows another relay holds are
 * skipped), and clears their mark; returns the pending ones with their current generation.
 */
export async function claimAwaitingJob(
  db: Db,
  limit: number,
): Promise<{ id: string; generation: number; status: WebhookEventStatus }[]> {
  const result = await sql<{ id: string; generation: number; status: WebhookEventStatus }>`
    UPDATE deliveries SET awaiting_job = false
    WHERE id IN (
      SELECT id FROM deliveries WHERE awaiting_job
      ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, generation, status`.execute(db);
  return result.rows;
}

/**
 * Deletes up to `limit` events created before `cutoff` whose every delivery is settled (their
 * deliveries and attempts go with them, by cascade).
 */
export async function pruneEvents(db: Db, cutoff: Date, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM events WHERE id IN (
      SELECT e.id FROM events AS e WHERE e.created_at < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM deliveries AS d WHERE d.event_id = e.id AND d.status = 'pending')
      ORDER BY e.created_at LIMIT ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
