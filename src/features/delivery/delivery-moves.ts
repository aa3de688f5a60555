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

/** A delivery the stuck sweeper moved to a new generation: what its new job needs. */
export type StuckDelivery = { id: string; generation: number; attempts: number };

/**
 * Pending deliveries due again (a retry, a resend, a release, an earlier sweep: `next_attempt_at`
 * set) whose attempt came due, and which were last written, before `dueBefore` (their job is gone:
 * it ran out of its own retries, say during a database outage), up to `limit`, oldest first: each
 * moves to a new generation, so a job of the old one that turns up after all does nothing. Found
 * through `deliveries_due`, which a settling outcome leaves by clearing `next_attempt_at`.
 */
export async function rescheduleStuckRetries(
  db: Db,
  dueBefore: Date,
  at: Date,
  limit: number,
): Promise<StuckDelivery[]> {
  const result = await sql<StuckDelivery>`
    UPDATE deliveries SET generation = generation + 1, next_attempt_at = ${at}, updated_at = ${at},
      awaiting_job = false
    WHERE id IN (
      SELECT id FROM deliveries
      WHERE next_attempt_at IS NOT NULL AND next_attempt_at < ${dueBefore} AND status = 'pending'
        AND updated_at < ${dueBefore}
      ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, generation, attempts`.execute(db);
  return result.rows;
}

/**
 * Pending deliveries still awaiting their first attempt (`next_attempt_at` null) created from
 * `from` on and before `dueBefore`, and not written since, up to `limit` in order of creation: each
 * moves to a new generation, due again (so from then on `rescheduleStuckRetries` finds it). Found
 * through `deliveries_by_age`: no index tells pending deliveries apart (an index on the status
 * would keep every outcome from being a HOT update, migration 0054), so the sweeper walks the
 * creations it has not walked yet (`firstAttemptsSweptTo`). Returns the rows and the creation of
 * the last, where the next slice goes on.
 */
export async function rescheduleStuckFirstAttempts(
  db: Db,
  from: Date,
  dueBefore: Date,
  at: Date,
  limit: number,
): Promise<{ rows: StuckDelivery[]; lastCreatedAt: Date | null }> {
  const result = await sql<StuckDelivery & { created_at: Date }>`
    UPDATE deliveries SET generation = generation + 1, next_attempt_at = ${at}, updated_at = ${at},
      awaiting_job = false
    WHERE id IN (
      SELECT id FROM deliveries
      WHERE created_at >= ${from} AND created_at < ${dueBefore} AND status = 'pending'
        AND next_attempt_at IS NULL AND updated_at < ${dueBefore}
      ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, generation, attempts, created_at`.execute(db);
  let lastCreatedAt: Date | null = null;
  const rows = result.rows.map(({ id, generation, attempts, created_at }) => {
    if (lastCreatedAt === null || created_at > lastCreatedAt) lastCreatedAt = created_at;
    return { id, generation, attempts };
  });
  return { rows, lastCreatedAt };
}

/** Where the stuck sweeper's walk of first attempts got to: deliveries created before it were looked at. */
export async function firstAttemptsSweptTo(db: Db): Promise<Date> {
  const row = await db.selectFrom('delivery_sweeps').select('first_attempts_swept_to').executeTakeFirst();
  return row?.first_attempts_swept_to ?? new Date(0);
}

/** Records that the walk got to `to` (never back: a slower pass of another process leaves it). */
export async function markFirstAttemptsSwept(db: Db, to: Date): Promise<void> {
  await sql`
    INSERT INTO delivery_sweeps (id, first_attempts_swept_to) VALUES (true, ${to})
    ON CONFLICT (id) DO UPDATE
      SET first_attempts_swept_to = greatest(delivery_sweeps.first_attempts_swept_to, EXCLUDED.first_attempts_swept_to)`.execute(
    db,
  );
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
