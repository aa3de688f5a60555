// Storage of mobile samples: the upsert of a batch (which marks the days it changed), deletions by
// platform record id, and reading samples back by local day for a rebuild.
import { sql } from 'kysely';
import type { MobileSample } from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import { connectionHeldForWrite } from '../connections/repo.ts';
import { checkpointUpdate, storeCheckpoint, type ImportCheckpoint } from './imports-repo.ts';
import { copyIn } from '../../store/copy-in.ts';
import { COPY_COLUMNS, type EncodedSampleRows } from './sample-rows.ts';

const BATCH = 500;

/** The instant the rows' milliseconds count from (sample-rows.ts: starts and ends). */
const EPOCH = sql`'1970-01-01T00:00:00Z'::timestamptz`;

/**
 * The staging table a batch's rows are streamed into (COPY, sample-rows.ts) before the upsert reads
 * them: one per connection, emptied at every commit (a batch of an import is a transaction of its
 * own) and after an upsert inside a caller's transaction (whose next upsert must not see these
 * rows again), so it never holds more than one batch. Temporary: its writes go to the backend's
 * own buffers, not the WAL.
 */
const STAGING = sql`pg_temp.mobile_sample_input`;
const createStaging = sql`
  CREATE TEMP TABLE IF NOT EXISTS mobile_sample_input (
    sample_id text NOT NULL, kind text NOT NULL, local_day date NOT NULL,
    start_ms bigint NOT NULL, end_ms bigint NOT NULL, body text NOT NULL
  ) ON COMMIT DELETE ROWS`;
const COPY_STAGING = `COPY pg_temp.mobile_sample_input (${COPY_COLUMNS.join(', ')}) FROM STDIN`;

/**
 * Upserts samples by (user, record id) and marks the local days whose content changed dirty (the
 * new day of a new or changed sample, and the old day of a changed one); returns those days. A
 * sample stored unchanged changes nothing, so a repeated upload leaves no day to rebuild. With
 * `checkpoint` (an import's batch), the import's progress is stored by the same statement, so the
 * samples and the checkpoint after them commit together.
 *
 * The rows come as COPY text (sample-rows.ts, built by an import's reader process) and are
 * streamed into the staging table as they are: the service builds and converts nothing per sample,
 * and copies no batch into a query's parameters (issue 44: node-postgres's Bind message grew by
 * copies to each batch's size, twice, and those buffers ran the importing process's full
 * collections). One statement then upserts them whatever their number (issue 28: a batch was a
 * select, an insert and a mark per 500 samples): the upsert skips unchanged rows, the `old` CTE
 * reads the day each written row had before (a statement's CTEs all see the snapshot from before
 * it), and the days it touched are marked in the same statement. Outside a transaction the
 * staging, the copy and the statement run in one of their own.
 *
 * `old` probes the primary key once per written row (LATERAL … LIMIT 1 keeps the planner from
 * turning it into a join): as a plain join the planner, going by the statistics of a table still
 * small when the import began, read every stored sample of the user on every batch (issue 44:
 * 25,000 rows scanned and hashed to find none, quadratic over an import). Only rows that replaced
 * a stored one are probed: a row version written by the upsert's update keeps the transaction's
 * lock in its xmax, one it inserted has none (xmax 0), and an inserted row had no day before. A
 * first import inserts every row, and the 5,000 probes were 15 % of a batch's execution.
 *
 * `owner` stands for the foreign key mobile_samples no longer has (migration 0051: checking it
 * per row was ~40 % of a batch): one key-share lock on the connection's row per statement, held
 * to the commit, so a deletion of the connection waits for the batch and its trigger then deletes
 * the batch's rows too; a connection already gone (or deleted while the batch waited for the
 * lock) yields no row, and nothing is written.
 */
export async function upsertSamples(
  db: Db,
  userId: string,
  rows: EncodedSampleRows,
  checkpoint?: ImportCheckpoint,
): Promise<Set<string>> {
  if (rows.count === 0) {
    if (checkpoint) await storeCheckpoint(db, checkpoint);
    return new Set();
  }
  if (!db.isTransaction)
    return db.transaction().execute((trx) => upsertStaged(trx, userId, rows, checkpoint));
  const marked = await upsertStaged(db, userId, rows, checkpoint);
  await sql`TRUNCATE ${STAGING}`.execute(db);
  return marked;
}

/** `upsertSamples` in a transaction, its rows left in the staging table until the commit. */
async function upsertStaged(
  db: Db,
  userId: string,
  rows: EncodedSampleRows,
  checkpoint: ImportCheckpoint | undefined,
): Promise<Set<string>> {
  await createStaging.execute(db);
  await copyIn(db, COPY_STAGING, rows.text);
  const progressed = checkpoint ? sql`, progressed AS (${checkpointUpdate(checkpoint)})` : sql``;
  const { rows: marked } = await sql<{ local_day: string }>`
    WITH input AS (SELECT * FROM ${STAGING}),
    owner AS MATERIALIZED (${connectionHeldForWrite(userId)}),
    upserted AS (
      INSERT INTO mobile_samples (user_id, sample_id, kind, local_day, start_at, end_at, body)
      SELECT owner.id, sample_id, kind, local_day, ${EPOCH} + start_ms * interval '1 millisecond',
        ${EPOCH} + end_ms * interval '1 millisecond', body FROM owner, input
      ON CONFLICT (user_id, sample_id) DO UPDATE SET
        kind = excluded.kind, local_day = excluded.local_day, start_at = excluded.start_at,
        end_at = excluded.end_at, body = excluded.body
      WHERE mobile_samples.body IS DISTINCT FROM excluded.body
      RETURNING sample_id, local_day, xmax <> 0 AS replaced
    ),
    old AS (
      SELECT stored.local_day FROM upserted CROSS JOIN LATERAL (
        SELECT local_day FROM mobile_samples
        WHERE user_id = ${userId}::uuid AND sample_id = upserted.sample_id
        LIMIT 1
      ) stored
      WHERE upserted.replaced
    ),
    changed AS (SELECT local_day FROM upserted UNION SELECT local_day FROM old),
    marked AS (
      INSERT INTO mobile_dirty_days (user_id, local_day)
      SELECT ${userId}::uuid, local_day FROM changed
      ON CONFLICT (user_id, local_day)
      DO UPDATE SET generation = mobile_dirty_days.generation + 1
      RETURNING local_day
    )${progressed}
    SELECT local_day::text AS local_day FROM marked`.execute(db);
  return new Set(marked.map((row) => row.local_day));
}

/**
 * Deletes samples by platform record id. A platform deletion names the record; a record that
 * became several samples (a Health Connect series, sleep stages) has ids `<id>#<n>`, which go too.
 */
export async function deleteSamples(db: Db, userId: string, ids: readonly string[]): Promise<Set<string>> {
  const days = new Set<string>();
  for (let index = 0; index < ids.length; index += BATCH) {
    const chunk = ids.slice(index, index + BATCH);
    const rows = await db
      .deleteFrom('mobile_samples')
      .where('user_id', '=', userId)
      .where((eb) =>
        eb.or([
          eb('sample_id', 'in', chunk),
          ...chunk.map((id) => eb('sample_id', 'like', `${id.replace(/[\\%_]/g, '\\$&')}#%`)),
        ]),
      )
      .returning(sql<string>`local_day::text`.as('local_day'))
      .execute();
    for (const row of rows) days.add(row.local_day);
  }
  return days;
}

/**
 * Per local day in [fromDay, toDay] holding samples: how many, and their bodies' total length. The
 * length is taken in a subquery fenced by `OFFSET 0`, so the grouping sorts (day, length) pairs,
 * not whole bodies: ~16,000 bodies of a 56-day run spilled that sort to disk at the default
 * `work_mem` (issue 44).
 */
export async function dayFingerprints(
  db: Db,
  userId: string,
  fromDay: string,
  toDay: string,
): Promise<Map<string, { count: number; length: number }>> {
  const lengths = db
    .selectFrom('mobile_samples')
    .select(['local_day', sql<number>`length(body)`.as('body_length')])
    .where('user_id', '=', userId)
    .where('local_day', '>=', fromDay)
    .where('local_day', '<=', toDay)
    .offset(0);
  const rows = await db
    .selectFrom(lengths.as('sample_lengths'))
    .select([
      sql<string>`local_day::text`.as('day'),
      sql<string>`count(*)`.as('count'),
      sql<string>`sum(body_length)`.as('length'),
    ])
    .groupBy('local_day')
    .execute();
  return new Map(rows.map((row) => [row.day, { count: Number(row.count), length: Number(row.length) }]));
}

/**
 * A day's sample bodies as one JSON array text, parsed at once: a rebuild reads tens of thousands
 * of samples back, and a row (and a parse) per sample cost the importing process more than the
 * samples' objects themselves (issue 44).
 */
const DAY_BODIES = sql<string>`'[' || string_agg(body, ',') || ']'`.as('bodies');

/** The local days a read takes: a list of days, or a range [from, to]. */
export type DayFilter = { days: readonly string[] } | { from: string; to: string };

/** Samples stored under the days of `filter`, by the day they are stored under. */
export async function samplesByDay(
  db: Db,
  userId: string,
  filter: DayFilter,
): Promise<Map<string, MobileSample[]>> {
  const byDay = new Map<string, MobileSample[]>();
  if ('days' in filter && filter.days.length === 0) return byDay;
  let query = db
    .selectFrom('mobile_samples')
    .select([sql<string>`local_day::text`.as('day'), DAY_BODIES])
    .where('user_id', '=', userId);
  query =
    'days' in filter
      ? query.where('local_day', 'in', filter.days)
      : query.where('local_day', '>=', filter.from).where('local_day', '<=', filter.to);
  for (const row of await query.groupBy('local_day').execute())
    byDay.set(row.day, JSON.parse(row.bodies) as MobileSample[]);
  return byDay;
}
