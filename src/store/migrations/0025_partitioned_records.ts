import { type Kysely, sql } from 'kysely';

/**
 * Issue 28: `data_records` becomes a table partitioned by month of `anchor_day` (the record's local
 * day), so a read of a few weeks touches one or two months' indexes however many years the table
 * holds, and old months can later be detached or moved as whole tables.
 *
 * Why `anchor_day` and not `anchor_at`: every write-side query that selects by time (the days a
 * sync replaces, the keys a mobile upload rebuilds) names local days, and date-windowed reads do
 * too; instant-windowed reads get day bounds derived from their instants (repo.ts). A record whose
 * time is corrected within its day keeps its row (the conflict target below still matches).
 *
 * A partitioned table's primary key must contain the partition column, so the key becomes
 * (user_id, type, identity_key, anchor_day): the connection leads the key of every partition, as
 * it leads every query. Uniqueness of (user_id, type, identity_key) across months is kept by the
 * writer (repo.ts `upsertSlice` deletes a record's row under another day in the same statement).
 *
 * Which months get a partition: every month that holds rows today (within the last 30 years and
 * the next 5), and the current month through 3 months ahead (a daily job, features/data/record-partitions.ts,
 * keeps that many ahead from then on). Everything else lands in `data_records_default` (older
 * history, plans far ahead, odd dates): a write never fails for want of a partition, and the
 * default is pruned from any read whose days all fall in named months. Few months on an empty
 * store: each partition is three relations to create, and a fresh embedded store pays for them.
 *
 * Works on a populated table inside the migrator's transaction, on PostgreSQL and PGlite: the old
 * table is renamed aside, the new one created with its partitions, the rows copied over (they
 * were unique under the old key, so they are under the new one), the old table dropped. The copy
 * holds the whole table once more on disk until the transaction ends.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE data_records RENAME TO data_records_unpartitioned`.execute(db);
  // Index names are unique per schema: the old ones step aside for the new table's.
  await sql`ALTER TABLE data_records_unpartitioned RENAME CONSTRAINT data_records_pkey TO data_records_unpartitioned_pkey`.execute(
    db,
  );
  await sql`ALTER INDEX data_records_by_anchor RENAME TO data_records_unpartitioned_by_anchor`.execute(db);

  await sql`
    CREATE TABLE data_records (
      user_id uuid NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      type text NOT NULL,
      identity_key text NOT NULL,
      anchor_at timestamptz NOT NULL,
      anchor_day date NOT NULL,
      summary json NOT NULL,
      samples json,
      sample_splices integer[],
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, type, identity_key, anchor_day)
    ) PARTITION BY RANGE (anchor_day)`.execute(db);

  const { rows } = await sql<{ month: string }>`
    SELECT month::text AS month FROM (
      SELECT DISTINCT date_trunc('month', anchor_day)::date AS month FROM data_records_unpartitioned
      UNION
      SELECT generate_series(date_trunc('month', now()), date_trunc('month', now()) + interval '3 months',
                             interval '1 month')::date
    ) months
    WHERE month >= date_trunc('month', now()) - interval '30 years'
      AND month <= date_trunc('month', now()) + interval '5 years'
    ORDER BY month`.execute(db);
  for (const { month } of rows) {
    await sql`
      CREATE TABLE ${sql.id(partitionName(month))} PARTITION OF data_records
      FOR VALUES FROM (${sql.lit(month)}) TO (${sql.lit(nextMonth(month))})`.execute(db);
  }
  // Created last, while empty: a partition created next to a non-empty default scans it.
  await sql`CREATE TABLE data_records_default PARTITION OF data_records DEFAULT`.execute(db);
  // Range reads page through this index with (anchor_at, identity_key) keysets.
  await sql`CREATE INDEX data_records_by_anchor ON data_records (user_id, type, anchor_at, identity_key)`.execute(
    db,
  );

  await sql`
    INSERT INTO data_records
      (user_id, type, identity_key, anchor_at, anchor_day, summary, samples, sample_splices, updated_at)
    SELECT user_id, type, identity_key, anchor_at, anchor_day, summary, samples, sample_splices, updated_at
    FROM data_records_unpartitioned`.execute(db);
  await sql`DROP TABLE data_records_unpartitioned`.execute(db);
  // The planner's row estimates for the new partitions (autovacuum would get there; PGlite has none).
  await sql`ANALYZE data_records`.execute(db);
}

/** `data_records_2024_03` for the month starting 2024-03-01. */
function partitionName(month: string): string {
  return `data_records_${month.slice(0, 4)}_${month.slice(5, 7)}`;
}

function nextMonth(month: string): string {
  const [year, monthNumber] = [Number(month.slice(0, 4)), Number(month.slice(5, 7))];
  return new Date(Date.UTC(year, monthNumber, 1)).toISOString().slice(0, 10);
}
