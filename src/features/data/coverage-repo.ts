// Sync coverage (which local days of a connection were fetched from its provider, and whether
// they are settled) and the companion kinds a provider refused: what decides whether a read
// must fetch again, kept apart from the records themselves (repo.ts).
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';

export type CoverageRow = { start_day: string; end_day: string };
export type StoredCoverageRow = CoverageRow & { settled: boolean };

/** Coverage overlapping [fromDay, toDay) that still counts: settled, or recent and synced after `freshAfter`. */
export async function coverageIn(
  db: Db,
  input: { userId: string; type: string; fromDay: string; toDay: string; freshAfter: Date },
): Promise<StoredCoverageRow[]> {
  return db
    .selectFrom('sync_coverage')
    .select([
      sql<string>`start_day::text`.as('start_day'),
      sql<string>`end_day::text`.as('end_day'),
      'settled',
    ])
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('start_day', '<', input.toDay)
    .where('end_day', '>', input.fromDay)
    .where((eb) => eb.or([eb('settled', '=', true), eb('synced_at', '>=', input.freshAfter)]))
    .orderBy('start_day')
    .execute();
}

/** Settled coverage overlapping [fromDay, toDay), in day order (what a read replica has replayed). */
export async function settledCoverageIn(
  db: Db,
  input: { userId: string; type: string; fromDay: string; toDay: string },
): Promise<CoverageRow[]> {
  return db
    .selectFrom('sync_coverage')
    .select([sql<string>`start_day::text`.as('start_day'), sql<string>`end_day::text`.as('end_day')])
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('start_day', '<', input.toDay)
    .where('end_day', '>', input.fromDay)
    .where('settled', '=', true)
    .orderBy('start_day')
    .execute();
}

/**
 * Records that [fromDay, toDay) was synced. Settled ranges are merged with the settled ranges
 * they overlap or touch, so coverage stays a handful of rows; a recent range replaces the recent
 * rows it overlaps.
 */
export async function addCoverage(
  db: Db,
  input: { userId: string; type: string; fromDay: string; toDay: string; settled: boolean; now: Date },
): Promise<void> {
  if (input.fromDay >= input.toDay) return;
  let from = input.fromDay;
  let to = input.toDay;
  const overlapping = await db
    .deleteFrom('sync_coverage')
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('settled', '=', input.settled)
    .where('start_day', input.settled ? '<=' : '<', to)
    .where('end_day', input.settled ? '>=' : '>', from)
    .returning([sql<string>`start_day::text`.as('start_day'), sql<string>`end_day::text`.as('end_day')])
    .execute();
  if (input.settled) {
    for (const row of overlapping) {
      if (row.start_day < from) from = row.start_day;
      if (row.end_day > to) to = row.end_day;
    }
  }
  await db
    .insertInto('sync_coverage')
    .values({
      user_id: input.userId,
      type: input.type,
      start_day: from,
      end_day: to,
      settled: input.settled,
      synced_at: input.now,
    })
    .execute();
}

/** The companion kinds a connection's provider refused, oldest first. */
export async function unreadableCompanions(
  db: Db,
  userId: string,
): Promise<{ kind: string; type: string; status: number; detail: string; recorded_at: Date }[]> {
  return db
    .selectFrom('unreadable_companions')
    .select(['kind', 'type', 'status', 'detail', 'recorded_at'])
    .where('user_id', '=', userId)
    .orderBy('recorded_at')
    .orderBy('kind')
    .execute();
}

/** Records a refused companion kind once (the first refusal is kept). */
export async function addUnreadableCompanion(
  db: Db,
  row: { userId: string; kind: string; type: string; status: number; detail: string; at: Date },
): Promise<void> {
  await db
    .insertInto('unreadable_companions')
    .values({
      user_id: row.userId,
      kind: row.kind,
      type: row.type,
      status: row.status,
      detail: row.detail,
      recorded_at: row.at,
    })
    .onConflict((conflict) => conflict.columns(['user_id', 'kind']).doNothing())
    .execute();
}
