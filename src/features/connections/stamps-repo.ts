// A connection's activity and timestamps: whether it is active, and when it last had a webhook
// delivered, data stored, or a poll (the times /userInfo shows).
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';

/** `active` of the given users (UUIDs); ids that are not users are absent from the map. One query. */
export async function findActivity(db: Db, userIds: readonly string[]): Promise<Map<string, boolean>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('connections')
    .select(['id', 'active'])
    .where('id', 'in', [...new Set(userIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.active]));
}

/** Sets `last_webhook_update` of each user (by UUID) to the given time; never moves it backwards. One statement. */
export async function stampLastWebhookUpdate(
  db: Db,
  deliveries: readonly (readonly [userId: string, at: Date])[],
): Promise<void> {
  if (deliveries.length === 0) return;
  const values = sql.join(deliveries.map(([id, at]) => sql`(${id}::uuid, ${at}::timestamptz)`));
  await sql`
    UPDATE connections AS u SET last_webhook_update = GREATEST(COALESCE(u.last_webhook_update, v.at), v.at)
    FROM (VALUES ${values}) AS v(id, at)
    WHERE u.id = v.id`.execute(db);
}

/**
 * How coarse `most_recent_data_at` is: a write moves it only when it is this much older. Most
 * write batches then find nothing to update and lock nothing: a connection syncing several types
 * at once does not queue its transactions on its own row.
 */
export const MOST_RECENT_DATA_GRAIN_MS = 60_000;

/** Data was stored for the connection at `at`: its `most_recent_data_at` moves forward (never back). */
export async function stampMostRecentData(db: Db, userId: string, at: Date): Promise<void> {
  const staleBefore = new Date(at.getTime() - MOST_RECENT_DATA_GRAIN_MS);
  await db
    .updateTable('connections')
    .set({ most_recent_data_at: at })
    .where('id', '=', userId)
    .where((eb) =>
      eb.or([eb('most_recent_data_at', 'is', null), eb('most_recent_data_at', '<=', staleBefore)]),
    )
    .execute();
}

/** The polling timestamp /userInfo shows, stamped by data sync after each poll. */
export async function markPolled(db: Db, userId: string, now: Date): Promise<void> {
  await db.updateTable('connections').set({ last_polled_at: now }).where('id', '=', userId).execute();
}
