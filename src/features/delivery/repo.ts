// Data access for the outbox: events (stored once, `events`), their deliveries (one per event ×
// destination, `deliveries`) and the attempt log (`delivery_attempts`). Every function takes the
// Db or transaction it runs in. Batch writes go out as one statement per batch, because the
// delivery engine writes thousands of outcomes a second.
import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import {
  booleanArrayLiteral,
  nullableTextArrayLiteral,
  numberArrayLiteral,
} from '../../store/array-literals.ts';
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
  let bodies = '';
  for (const [index, event] of events.entries()) {
    if (event.body.includes('\n')) throw new Error(`event ${event.id}'s body holds a line feed`);
    bodies += index === 0 ? event.body : `\n${event.body}`;
  }
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
 * The outcome write's one statement, its text fixed (one array parameter per column, $1 the
 * delivery ids), so no query builder runs per wave. Timestamps go as epoch milliseconds (float8),
 * which cost less to print and to parse than ISO text. Deliberately not a prepared (named)
 * statement: a generic plan does not see the ids array, and a plan that scans deliveries instead
 * of finding the wave's rows by primary key costs O(backlog) per write (bench/FINDINGS.md, issue
 * 44 third pass); the database CPU per outcome was the same either way (bench/delivery-statements.ts).
 */
const RECORD_OUTCOMES = `
    WITH v (id, generation, status, attempted, next_attempt_at, status_code, error, at,
            developer_id, attempt, url, attempted_at, duration_ms, outcome) AS (
      SELECT u.id, u.generation, u.status, u.attempted, to_timestamp(u.next_ms / 1000), u.status_code,
        u.error, to_timestamp(u.at_ms / 1000), u.developer_id, u.attempt, u.url,
        to_timestamp(u.attempted_ms / 1000), u.duration_ms, u.outcome
      FROM unnest($1::text[], $2::int[], $3::text[], $4::boolean[], $5::float8[], $6::int[], $7::text[],
        $8::float8[], $9::text[], $10::int[], $11::text[], $12::float8[], $13::int[], $14::text[])
        AS u (id, generation, status, attempted, next_ms, status_code, error, at_ms, developer_id, attempt,
          url, attempted_ms, duration_ms, outcome)),
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
      WHERE e.id = any($1::text[]) AND e.id = v.id AND e.generation = v.generation
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
    SELECT id FROM updated`;

/**
 * Applies outcomes and logs their attempts in one statement; returns the ids actually updated
 * (still pending at the generation the job was for). An attempt is logged only with its update,
 * so the log and the event never disagree, and the attempt's delivery exists (no foreign key
 * checks it per row any more: migration 0050).
 */
export async function recordOutcomes(db: Db, outcomes: readonly EventOutcome[]): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  // The columns in one pass, each sent as one array literal built here (store/array-literals.ts).
  const count = outcomes.length;
  const ids = new Array<string>(count);
  const generations = new Array<number>(count);
  const statuses = new Array<string>(count);
  const attempted = new Array<boolean>(count);
  const nextAttemptMs = new Array<number | null>(count);
  const statusCodes = new Array<number | null>(count);
  const errors = new Array<string | null>(count);
  const atMs = new Array<number>(count);
  const developerIds = new Array<string | null>(count);
  const attemptNumbers = new Array<number | null>(count);
  const urls = new Array<string | null>(count);
  const attemptedAtMs = new Array<number | null>(count);
  const durations = new Array<number | null>(count);
  const attemptOutcomes = new Array<string | null>(count);
  for (let index = 0; index < count; index++) {
    const outcome = outcomes[index]!;
    const attempt = outcome.attempt;
    ids[index] = outcome.id;
    generations[index] = outcome.generation;
    statuses[index] = outcome.status;
    attempted[index] = attempt !== null;
    nextAttemptMs[index] = outcome.nextAttemptAt ? outcome.nextAttemptAt.getTime() : null;
    statusCodes[index] = outcome.statusCode;
    errors[index] = outcome.error;
    atMs[index] = outcome.at.getTime();
    developerIds[index] = attempt ? attempt.developerId : null;
    attemptNumbers[index] = attempt ? attempt.number : null;
    urls[index] = attempt ? attempt.url : null;
    attemptedAtMs[index] = attempt ? attempt.attemptedAt.getTime() : null;
    durations[index] = attempt ? attempt.durationMs : null;
    attemptOutcomes[index] = attempt ? attempt.outcome : null;
  }
  const result = await db.executeQuery<{ id: string }>(
    CompiledQuery.raw(RECORD_OUTCOMES, [
      textArrayLiteral(ids),
      numberArrayLiteral(generations),
      textArrayLiteral(statuses),
      booleanArrayLiteral(attempted),
      numberArrayLiteral(nextAttemptMs),
      numberArrayLiteral(statusCodes),
      nullableTextArrayLiteral(errors),
      numberArrayLiteral(atMs),
      nullableTextArrayLiteral(developerIds),
      numberArrayLiteral(attemptNumbers),
      nullableTextArrayLiteral(urls),
      numberArrayLiteral(attemptedAtMs),
      numberArrayLiteral(durations),
      nullableTextArrayLiteral(attemptOutcomes),
    ]),
  );
  const applied = new Set<string>();
  for (const row of result.rows) applied.add(row.id);
  return applied;
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
