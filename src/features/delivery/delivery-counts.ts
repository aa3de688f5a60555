// What the delivery log counts for one destination's health: failed attempts, held deliveries, and
// the attempts per hour the healthcheck event reports.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import { KEPT_WITHIN_MINUTES } from './outcome-rows.ts';

/** Failed attempts since `since` (uses the partial failure index, so it stays cheap at volume). */
export async function countFailuresSince(
  db: Db,
  developerId: string,
  since: Date,
  destinationId: string | null = null,
): Promise<number> {
  const row = await db
    .selectFrom('delivery_attempts as a')
    .innerJoin('deliveries as d', 'd.id', 'a.delivery_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('a.developer_id', '=', developerId)
    .where('a.attempted_at', '>=', since)
    .where('a.outcome', '<>', 'delivered')
    .where('d.destination_id', destinationId === null ? 'is' : '=', destinationId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Held deliveries to the developer's webhook (`destinationId` null) or to one other destination. */
export async function countHeld(
  db: Db,
  developerId: string,
  destinationId: string | null = null,
): Promise<number> {
  const row = await db
    .selectFrom('deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('developer_id', '=', developerId)
    .where('destination_id', destinationId === null ? 'is' : '=', destinationId)
    .where('held_at', 'is not', null)
    .where('status', '=', 'held')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Attempts in the last hour and the hour before, for the healthcheck event's figures: the rows of
 * the attempt log and the first attempts kept on their delivery's row (migration 0053). A kept
 * attempt was made within KEPT_WITHIN_MINUTES of its delivery's creation, so the deliveries created
 * since then hold them all; they are found by developer and creation (`deliveries_by_developer_age`),
 * columns an outcome never changes, which keeps the outcome a HOT update (migration 0054).
 */
export async function attemptsPerHour(
  db: Db,
  developerId: string,
  at: Date,
): Promise<{ last: number; previous: number }> {
  const result = await sql<{ last: number; previous: number }>`
    SELECT count(*) FILTER (WHERE attempted_at >= ${at}::timestamptz - interval '1 hour') AS last,
           count(*) FILTER (WHERE attempted_at < ${at}::timestamptz - interval '1 hour') AS previous
    FROM (
      SELECT attempted_at FROM delivery_attempts
      WHERE developer_id = ${developerId} AND attempted_at >= ${at}::timestamptz - interval '2 hours'
      UNION ALL
      SELECT first_attempt_at FROM deliveries
      WHERE developer_id = ${developerId}
        AND created_at >= ${at}::timestamptz - interval '2 hours' - ${KEPT_WITHIN_MINUTES} * interval '1 minute'
        AND first_attempt_at >= ${at}::timestamptz - interval '2 hours'
    ) AS attempts (attempted_at)`.execute(db);
  const row = result.rows[0];
  return { last: Number(row?.last ?? 0), previous: Number(row?.previous ?? 0) };
}
