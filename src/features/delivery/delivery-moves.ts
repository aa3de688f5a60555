// Data access for moving deliveries between states outside an attempt: a resend, the stuck
// sweeper's new generation, releasing held deliveries, dropping a gone user's suppressible ones,
// the relay's claim of deliveries awaiting their first job, and pruning settled events. Every
// function takes the Db or transaction it runs in.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { WebhookEventStatus } from './tables.ts';

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
