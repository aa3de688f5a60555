// Data access for stored records, raw payloads and sync coverage. Every function takes the
// database or transaction it runs in. JSON columns are read as text (`::text`) so a read can
// pass them through untouched, and date columns as text so no driver turns them into Dates.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { PreparedRecord } from './records.ts';

// The read path's statements have a module of their own; callers reach them here too.
export * from './range-reads.ts';

/**
 * Inserts or replaces records by (user, type, identity): a re-sync overwrites, never duplicates.
 * Postgres refuses to update one row twice in a statement, so a batch keeps the last of equal keys.
 */
export async function upsertRecords(
  db: Db,
  userId: string,
  type: string,
  records: readonly PreparedRecord[],
  now: Date,
): Promise<void> {
  if (records.length === 0) return;
  const byKey = new Map<string, PreparedRecord>();
  for (const record of records) byKey.set(record.identityKey, record);
  const unique = [...byKey.values()];
  // Bounded statements: Postgres takes at most 65,535 parameters, and pushes can be large.
  for (let from = 0; from < unique.length; from += UPSERT_ROWS) {
    await upsertSlice(db, userId, type, unique.slice(from, from + UPSERT_ROWS), now);
  }
}

const UPSERT_ROWS = 500;

/**
 * One statement per slice. `data_records` is partitioned by month of `anchor_day` (migration
 * 0025), so its key, and the conflict target, include the day: a record whose anchor moved to
 * another day would insert a second row. The `moved` step deletes the record's rows under any
 * other day first, in the same statement (one snapshot: it cannot see the row the insert adds).
 * It names no days, so it looks in every partition's key index, a probe per partition.
 *
 * What the old single-column key did and this cannot: two transactions writing the same record
 * under two different days at the same moment each miss the other's uncommitted row and both
 * commit. Within a process the sync serializes a connection's type (provider-fetch `serialized`);
 * across processes that race is left open (it needs the provider to move a record's day between
 * two overlapping fetches), and the next write of that record removes the stray row.
 */
async function upsertSlice(db: Db, userId: string, type: string, records: PreparedRecord[], now: Date) {
  const keys = records.map((record) => record.identityKey);
  const days = records.map((record) => record.anchorDay);
  await db
    .with(
      'moved',
      () =>
        // Kysely puts a raw CTE body in the statement as it is: the parentheses are ours.
        sql`(
        DELETE FROM data_records AS stored
        USING unnest(${keys}::text[], ${days}::date[]) AS incoming (identity_key, anchor_day)
        WHERE stored.user_id = ${userId} AND stored.type = ${type}
          AND stored.identity_key = incoming.identity_key AND stored.anchor_day <> incoming.anchor_day)`,
    )
    .insertInto('data_records')
    .values(
      records.map((record) => ({
        user_id: userId,
        type,
        identity_key: record.identityKey,
        anchor_at: record.anchorAt,
        anchor_day: record.anchorDay,
        summary: record.summary,
        samples: record.samples,
        sample_splices: record.splices,
        updated_at: now,
      })),
    )
    .onConflict((conflict) =>
      conflict.columns(['user_id', 'type', 'identity_key', 'anchor_day']).doUpdateSet({
        anchor_at: (eb) => eb.ref('excluded.anchor_at'),
        summary: (eb) => eb.ref('excluded.summary'),
        samples: (eb) => eb.ref('excluded.samples'),
        sample_splices: (eb) => eb.ref('excluded.sample_splices'),
        updated_at: (eb) => eb.ref('excluded.updated_at'),
      }),
    )
    .execute();
}

/** Records of a type anchored on a local day in [fromDay, toDay), in day order (small record types). */
export async function recordsOnDays(
  db: Db,
  input: { userId: string; type: string; fromDay: string; toDay: string },
): Promise<{ identity_key: string; summary: string }[]> {
  return db
    .selectFrom('data_records')
    .select(['identity_key', sql<string>`summary::text`.as('summary')])
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('anchor_day', '>=', input.fromDay)
    .where('anchor_day', '<', input.toDay)
    .orderBy('anchor_day')
    .orderBy('identity_key')
    .execute();
}

/** The version of a row as it now stands: its partition, place and writing transaction. */
const rowVersion = sql<string>`tableoid::text || ':' || ctid::text || ':' || xmin::text`;

/**
 * What moved among the records of several types on local days [fromDay, toDay) since a reader saw
 * them under the row versions `known` (a version changes with every write of the record, a second
 * write in the same transaction included): every row of the range under a version not among
 * `known`, with its summary, and every version of `known` no row of the range stands under any
 * more (removed, rewritten, or moved out). One statement, whose answer is the change alone: a
 * reader that keeps what it derived from rows gets a few rows back where the range holds months.
 */
export async function movedOnDays(
  db: Db,
  input: {
    userId: string;
    types: readonly string[];
    fromDay: string;
    toDay: string;
    known: readonly string[];
  },
): Promise<{
  moved: { type: string; identity_key: string; day: string; version: string; summary: string }[];
  gone: string[];
}> {
  if (input.types.length === 0) return { moved: [], gone: [...input.known] };
  // The range is scanned once and the known versions sent once (a CTE named twice is computed
  // once), as one space-separated text: a version holds no space, and one string costs the driver
  // far less than an array of hundreds escaped one by one. `gone` rows carry only a version.
  const { rows } = await sql<{
    type: string | null;
    identity_key: string | null;
    day: string | null;
    version: string;
    summary: string | null;
  }>`
    WITH known AS (SELECT unnest(string_to_array(${input.known.join(' ')}::text, ' ')) AS version),
    in_range AS (
      SELECT type, identity_key, anchor_day, ${rowVersion} AS version, summary FROM data_records
      WHERE user_id = ${input.userId} AND type = ANY(${[...input.types]}::text[])
        AND anchor_day >= ${input.fromDay} AND anchor_day < ${input.toDay})
    SELECT type, identity_key, anchor_day::text AS day, version, summary::text AS summary
      FROM in_range WHERE version NOT IN (SELECT version FROM known)
    UNION ALL
    SELECT NULL, NULL, NULL, version, NULL FROM known
      WHERE version NOT IN (SELECT version FROM in_range)`.execute(db);
  const moved: { type: string; identity_key: string; day: string; version: string; summary: string }[] = [];
  const gone: string[] = [];
  for (const row of rows)
    if (row.type === null) gone.push(row.version);
    else moved.push(row as (typeof moved)[number]);
  return { moved, gone };
}

/**
 * Summaries (samples left out) and the splices that put the samples back, by identity; `days`
 * (local days [fromDay, toDay) the records are known to lie on) spares a probe of every month.
 */
export async function summariesByKeys(
  db: Db,
  input: { userId: string; type: string; keys: readonly string[]; days?: { fromDay: string; toDay: string } },
): Promise<{ identity_key: string; day: string; summary: string; sample_splices: number[] | null }[]> {
  if (input.keys.length === 0) return [];
  let query = db.selectFrom('data_records');
  if (input.days)
    query = query.where('anchor_day', '>=', input.days.fromDay).where('anchor_day', '<', input.days.toDay);
  return query
    .select([
      'identity_key',
      sql<string>`anchor_day::text`.as('day'),
      sql<string>`summary::text`.as('summary'),
      'sample_splices',
    ])
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('identity_key', 'in', input.keys)
    .execute();
}

/**
 * Replaces a stored record's summary (and the splices into it) and leaves its samples as they
 * are: the samples column is not written again, however large.
 */
export async function replaceSummary(
  db: Db,
  input: {
    userId: string;
    type: string;
    key: string;
    day: string;
    summary: string;
    splices: number[] | null;
    now: Date;
  },
): Promise<void> {
  await db
    .updateTable('data_records')
    .set({ summary: input.summary, sample_splices: input.splices, updated_at: input.now })
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('identity_key', '=', input.key)
    .where('anchor_day', '=', input.day)
    .execute();
}

/** The local days on which a connection holds records of a type, oldest first. */
export async function daysWithRecords(db: Db, userId: string, type: string): Promise<string[]> {
  const rows = await db
    .selectFrom('data_records')
    .select(sql<string>`anchor_day::text`.as('day'))
    .distinct()
    .where('user_id', '=', userId)
    .where('type', '=', type)
    .orderBy('day')
    .execute();
  return rows.map((row) => row.day);
}

/** Identity keys and anchor days of a type's records on local days [fromDay, toDay). */
export async function keysOnDays(
  db: Db,
  input: { userId: string; type: string; fromDay: string; toDay: string },
): Promise<{ key: string; day: string }[]> {
  return db
    .selectFrom('data_records')
    .select(['identity_key as key', sql<string>`anchor_day::text`.as('day')])
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('anchor_day', '>=', input.fromDay)
    .where('anchor_day', '<', input.toDay)
    .execute();
}

export async function existingKeys(
  db: Db,
  userId: string,
  type: string,
  keys: readonly string[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .selectFrom('data_records')
    .select('identity_key')
    .where('user_id', '=', userId)
    .where('type', '=', type)
    .where('identity_key', 'in', keys)
    .execute();
  return new Set(rows.map((row) => row.identity_key));
}

/** Deletes records by identity; returns the local days they were anchored on. */
export async function deleteRecords(
  db: Db,
  userId: string,
  type: string,
  keys: readonly string[],
): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .deleteFrom('data_records')
    .where('user_id', '=', userId)
    .where('type', '=', type)
    .where('identity_key', 'in', keys)
    .returning(sql<string>`anchor_day::text`.as('day'))
    .execute();
  return [...new Set(rows.map((row) => row.day))].sort();
}

/** A removed record: its identity, its local day and its summary (JSON text, samples left out). */
export type RemovedRecord = { identity_key: string; day: string; summary: string };

const removedColumns = [
  'identity_key',
  sql<string>`anchor_day::text`.as('day'),
  sql<string>`summary::text`.as('summary'),
] as const;

/** Removes records by identity; returns what was removed (ids not stored are no rows). */
export async function removeRecords(
  db: Db,
  input: { userId: string; type: string; keys: readonly string[] },
): Promise<RemovedRecord[]> {
  if (input.keys.length === 0) return [];
  return db
    .deleteFrom('data_records')
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('identity_key', 'in', input.keys)
    .returning(removedColumns)
    .execute();
}

/** Removes the records of local days [startDate, endDate) whose identity is not in `keep`; returns them. */
export async function deleteRecordsOfDaysExcept(
  db: Db,
  input: { userId: string; type: string; startDate: string; endDate: string; keep: readonly string[] },
): Promise<RemovedRecord[]> {
  let query = db
    .deleteFrom('data_records')
    .where('user_id', '=', input.userId)
    .where('type', '=', input.type)
    .where('anchor_day', '>=', input.startDate)
    .where('anchor_day', '<', input.endDate);
  if (input.keep.length > 0) query = query.where('identity_key', 'not in', input.keep);
  return query.returning(removedColumns).execute();
}
