// Data access for a developer's webhook destination: URL, signing secrets and health, which live
// on the `developers` row (migration 0003 adds the columns this module reads through `withDestination`).
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { DestinationColumns, DestinationStatus } from './tables.ts';

/** The developers table seen with the destination columns migration 0003 added. */
const withDestination = (db: Db) => db.withTables<{ developers: DestinationColumns }>();

export type DestinationRow = {
  id: string;
  environment: 'sandbox' | 'production';
  webhook_url: string | null;
  webhook_secret: string;
  webhook_secret_previous: string | null;
  webhook_secret_rotated_at: Date | null;
  webhook_status: DestinationStatus;
  webhook_consecutive_failures: number;
  webhook_failing_since: Date | null;
  webhook_disabled_at: Date | null;
  webhook_last_success_at: Date | null;
  webhook_last_failure_at: Date | null;
};

const columns = [
  'id',
  'environment',
  'webhook_url',
  'webhook_secret',
  'webhook_secret_previous',
  'webhook_secret_rotated_at',
  'webhook_status',
  'webhook_consecutive_failures',
  'webhook_failing_since',
  'webhook_disabled_at',
  'webhook_last_success_at',
  'webhook_last_failure_at',
] as const;

export async function findDestination(db: Db, developerId: string): Promise<DestinationRow | undefined> {
  return withDestination(db)
    .selectFrom('developers')
    .select(columns)
    .where('id', '=', developerId)
    .executeTakeFirst();
}

export async function findDestinations(
  db: Db,
  developerIds: readonly string[],
): Promise<Map<string, DestinationRow>> {
  if (developerIds.length === 0) return new Map();
  const rows = await withDestination(db)
    .selectFrom('developers')
    .select(columns)
    .where('id', 'in', [...new Set(developerIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** Sets the URL and/or status; (re)enabling clears the failure streak so the destination starts afresh. */
export async function updateDestination(
  db: Db,
  developerId: string,
  changes: { url?: string; status: 'active' | 'disabled'; at: Date },
): Promise<void> {
  const reset =
    changes.status === 'active'
      ? { webhook_consecutive_failures: 0, webhook_failing_since: null, webhook_disabled_at: null }
      : { webhook_disabled_at: changes.at };
  await withDestination(db)
    .updateTable('developers')
    .set({
      ...(changes.url === undefined ? {} : { webhook_url: changes.url }),
      webhook_status: changes.status,
      ...reset,
    })
    .where('id', '=', developerId)
    .execute();
}

export async function rotateSecret(db: Db, developerId: string, sealedNew: string, at: Date): Promise<void> {
  await sql`
    UPDATE developers SET webhook_secret_previous = webhook_secret, webhook_secret = ${sealedNew},
      webhook_secret_rotated_at = ${at}
    WHERE id = ${developerId}`.execute(db);
}

/**
 * Folds a batch's results for one destination into its health. Any success ends a failure streak;
 * otherwise the streak grows, and its age decides `failing` and then `disabled`. Quiet successes do
 * not rewrite the row every batch: only a state change or a stale `last_success_at` does.
 */
export async function recordHealth(
  db: Db,
  developerId: string,
  result: { successes: number; failures: number; at: Date; failingAfterMs: number; disableAfterMs: number },
): Promise<void> {
  const { at } = result;
  if (result.successes > 0) {
    await sql`
      UPDATE developers SET webhook_consecutive_failures = 0, webhook_failing_since = NULL,
        webhook_status = CASE WHEN webhook_status = 'failing' THEN 'active' ELSE webhook_status END,
        webhook_last_success_at = ${at}
      WHERE id = ${developerId} AND (webhook_consecutive_failures > 0 OR webhook_status = 'failing'
        OR webhook_last_success_at IS NULL OR webhook_last_success_at < ${at}::timestamptz - interval '10 seconds')`.execute(
      db,
    );
    return;
  }
  if (result.failures === 0) return;
  const since = sql`COALESCE(webhook_failing_since, ${at}::timestamptz)`;
  const disableAt = sql`${at}::timestamptz - ${result.disableAfterMs}::double precision * interval '1 millisecond'`;
  const failingAt = sql`${at}::timestamptz - ${result.failingAfterMs}::double precision * interval '1 millisecond'`;
  await sql`
    UPDATE developers SET
      webhook_consecutive_failures = webhook_consecutive_failures + ${result.failures}::int,
      webhook_failing_since = ${since},
      webhook_last_failure_at = ${at},
      webhook_status = CASE
        WHEN webhook_status = 'disabled' OR ${since} <= ${disableAt} THEN 'disabled'
        WHEN ${since} <= ${failingAt} THEN 'failing'
        ELSE webhook_status END,
      webhook_disabled_at = CASE
        WHEN webhook_status <> 'disabled' AND ${since} <= ${disableAt} THEN ${at}
        ELSE webhook_disabled_at END
    WHERE id = ${developerId}`.execute(db);
}

/** Failed attempts since `since` (uses the partial failure index, so it stays cheap at volume). */
export async function countFailuresSince(db: Db, developerId: string, since: Date): Promise<number> {
  const row = await db
    .selectFrom('webhook_attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('developer_id', '=', developerId)
    .where('attempted_at', '>=', since)
    .where('outcome', '<>', 'delivered')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function countHeld(db: Db, developerId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('developer_id', '=', developerId)
    .where('held_at', 'is not', null)
    .where('status', '=', 'held')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Attempts in the last hour and the hour before, for the healthcheck event's figures. */
export async function attemptsPerHour(
  db: Db,
  developerId: string,
  at: Date,
): Promise<{ last: number; previous: number }> {
  const result = await sql<{ last: number; previous: number }>`
    SELECT count(*) FILTER (WHERE attempted_at >= ${at}::timestamptz - interval '1 hour') AS last,
           count(*) FILTER (WHERE attempted_at < ${at}::timestamptz - interval '1 hour') AS previous
    FROM webhook_attempts
    WHERE developer_id = ${developerId} AND attempted_at >= ${at}::timestamptz - interval '2 hours'`.execute(
    db,
  );
  const row = result.rows[0];
  return { last: Number(row?.last ?? 0), previous: Number(row?.previous ?? 0) };
}
