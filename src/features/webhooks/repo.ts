// Data access for the outbox (`webhook_events`) and the attempt log. Every function takes the
// Db or transaction it runs in. Batch writes go out as one statement per batch, because the
// delivery engine writes thousands of outcomes a second.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { AttemptOutcome, WebhookEventStatus } from './tables.ts';

export type NewEventRow = {
  id: string;
  developer_id: string;
  /** Null: the developer's webhook; else the destination (another kind) this copy is for. */
  destination_id: string | null;
  type: string;
  user_id: string | null;
  reference: string | null;
  suppressible: boolean;
  body: string;
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
 * Stores events, in order, as one statement with one array parameter per column (unnest): a
 * bulk emit of 500 events bound 6,000 parameters as a VALUES list, which cost more to build,
 * send and parse than the rows themselves.
 */
export async function insertEvents(db: Db, rows: NewEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    INSERT INTO webhook_events (id, developer_id, destination_id, type, user_id, reference, suppressible, body,
      status, last_error, awaiting_job, created_at, updated_at)
    SELECT * FROM unnest(
      ${column(rows, (r) => r.id)}::text[], ${column(rows, (r) => r.developer_id)}::text[],
      ${column(rows, (r) => r.destination_id)}::uuid[],
      ${column(rows, (r) => r.type)}::text[], ${column(rows, (r) => r.user_id)}::text[],
      ${column(rows, (r) => r.reference)}::text[], ${column(rows, (r) => r.suppressible)}::boolean[],
      ${column(rows, (r) => r.body)}::text[], ${column(rows, (r) => r.status)}::text[],
      ${column(rows, (r) => r.last_error)}::text[], ${column(rows, (r) => r.awaiting_job)}::boolean[],
      ${column(rows, (r) => iso(r.created_at))}::timestamptz[],
      ${column(rows, (r) => iso(r.updated_at))}::timestamptz[])`.execute(db);
}

export type DeliverableEvent = {
  id: string;
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
  return db
    .selectFrom('webhook_events')
    .select([
      'id',
      'developer_id',
      'destination_id',
      'created_at',
      'type',
      'user_id',
      'reference',
      'suppressible',
      'body',
      'status',
      'generation',
      'attempts',
    ])
    .where('id', 'in', ids)
    .execute();
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

/** The new state of one event after an attempt (`attempt` set), or after it was held or dropped without one. */
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
 * so the log and the event never disagree.
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
      UPDATE webhook_events AS e SET
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
      WHERE e.id = v.id AND e.generation = v.generation AND e.status = 'pending'
        -- Hold only while the destination still says so: a URL set (and held events released)
        -- after this batch read the destination must not leave the event held with nobody to
        -- release it. The caller sends such an event again instead.
        AND (v.status <> 'held' OR NOT EXISTS (
          SELECT 1 FROM webhook_destinations AS d
          WHERE (CASE WHEN e.destination_id IS NULL
                   THEN d.developer_id = e.developer_id AND d.kind = 'webhook'
                   ELSE d.id = e.destination_id END)
            AND d.url IS NOT NULL AND d.status <> 'disabled'
            AND d.suspended_at IS NULL))
      RETURNING e.id),
    logged AS (
      INSERT INTO webhook_attempts (event_id, developer_id, attempt, url, attempted_at, duration_ms, status_code,
        error, outcome, next_attempt_at)
      SELECT v.id, v.developer_id, v.attempt, v.url, v.attempted_at, v.duration_ms, v.status_code, v.error,
        v.outcome, v.next_attempt_at
      FROM v JOIN updated ON updated.id = v.id
      WHERE v.attempted)
    SELECT id FROM updated`.execute(db);
  return new Set(result.rows.map((row) => row.id));
}

/** Moves an event back to pending for a new round of attempts; null when it is not this developer's. */
export async function reschedule(
  db: Db,
  developerId: string,
  eventId: string,
  at: Date,
  /** When given: only an event of the webhook (null) or of this destination. */
  destinationId?: string | null,
): Promise<{ id: string; generation: number } | undefined> {
  return db
    .updateTable('webhook_events')
    .set((eb) => ({
      status: 'pending',
      generation: eb('generation', '+', 1),
      next_attempt_at: at,
      last_error: null,
      held_at: null,
      updated_at: at,
      awaiting_job: false,
    }))
    .where('id', '=', eventId)
    .where('developer_id', '=', developerId)
    .$if(destinationId !== undefined, (query) =>
      query.where('destination_id', destinationId ? '=' : 'is', destinationId ?? null),
    )
    .returning(['id', 'generation'])
    .executeTakeFirst();
}

/**
 * Pending events whose attempt came due before `dueBefore` (their job is gone: it ran out of its
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
    UPDATE webhook_events SET generation = generation + 1, next_attempt_at = ${at}, updated_at = ${at},
      awaiting_job = false
    WHERE id IN (
      SELECT id FROM webhook_events
      WHERE status = 'pending' AND updated_at < ${dueBefore}
        AND (next_attempt_at IS NULL OR next_attempt_at < ${dueBefore})
      ORDER BY updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, generation, attempts`.execute(db);
  return result.rows;
}

/**
 * Releases up to `limit` held events of a developer's webhook (`destinationId` null), of one of
 * its other destinations, or (`'all'`) of every destination it has, oldest first, for delivery.
 */
export async function releaseHeld(
  db: Db,
  developerId: string,
  at: Date,
  limit: number,
  destinationId: string | null | 'all' = null,
): Promise<{ id: string; generation: number }[]> {
  const which =
    destinationId === 'all'
      ? sql``
      : destinationId === null
        ? sql`AND destination_id IS NULL`
        : sql`AND destination_id = ${destinationId}`;
  const result = await sql<{ id: string; generation: number }>`
    UPDATE webhook_events SET status = 'pending', generation = generation + 1, next_attempt_at = ${at},
      last_error = NULL, held_at = NULL, updated_at = ${at}, awaiting_job = false
    WHERE id IN (
      SELECT id FROM webhook_events WHERE developer_id = ${developerId} ${which} AND held_at IS NOT NULL AND status = 'held'
      ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, generation`.execute(db);
  return result.rows;
}

/** Drops a user's suppressible events that have not gone out yet; returns how many. */
export async function dropPendingSuppressible(
  db: Db,
  userId: string,
  reason: string,
  at: Date,
): Promise<number> {
  const result = await db
    .updateTable('webhook_events')
    .set((eb) => ({
      status: 'dropped',
      generation: eb('generation', '+', 1),
      last_error: reason,
      held_at: null,
      updated_at: at,
      awaiting_job: false,
    }))
    .where('user_id', '=', userId)
    .where('suppressible', '=', true)
    .where('status', 'in', ['pending', 'held'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Takes up to `limit` events awaiting their first job, oldest first (rows another relay holds are
 * skipped), and clears their mark; returns the pending ones with their current generation.
 */
export async function claimAwaitingJob(
  db: Db,
  limit: number,
): Promise<{ id: string; generation: number; status: WebhookEventStatus }[]> {
  const result = await sql<{ id: string; generation: number; status: WebhookEventStatus }>`
    UPDATE webhook_events SET awaiting_job = false
    WHERE id IN (
      SELECT id FROM webhook_events WHERE awaiting_job
      ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, generation, status`.execute(db);
  return result.rows;
}

/** Deletes up to `limit` events (and, by cascade, their attempts) created before `cutoff` that are settled. */
export async function pruneEvents(db: Db, cutoff: Date, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM webhook_events WHERE id IN (
      SELECT id FROM webhook_events WHERE created_at < ${cutoff} AND status <> 'pending'
      ORDER BY created_at LIMIT ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** The developer's events since `since`, counted per hour and status (the dashboard's overview chart). */
export async function countEventsByHour(
  db: Db,
  developerId: string,
  since: Date,
): Promise<{ hour: Date; status: WebhookEventStatus; n: number }[]> {
  const rows = await db
    .selectFrom('webhook_events')
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
    .selectFrom('webhook_events')
    .select('body')
    .where('developer_id', '=', developerId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  return row?.body;
}

/** One page of the events about one user (any status, any destination) in `seq` order after `afterSeq`. */
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
    .selectFrom('webhook_events')
    .select(['id', 'seq', 'type', 'status', 'destination_id', 'created_at', 'delivered_at', 'body'])
    .where('developer_id', '=', developerId)
    .where('user_id', '=', userId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}
