// The month partitions of `data_records` (migration 0025), kept ahead of time. Each month gets
// its partition before it begins: a daily job makes the coming months' partitions, so a record
// of this month or the next lands in its own month and reads of it prune to that month.
//
// Why not create partitions on demand in the write path: DDL there would take locks on the parent
// table in the middle of an import's transaction, and every write would first have to ask whether
// its month exists. Why a default partition as well (made by the migration): whatever the job has
// not covered (a missed run, history older than the table, plans years ahead) still lands
// somewhere, so no write ever fails for want of a partition. Carving a month out of the default
// later moves its rows into the new partition in the same transaction.
import { sql } from 'kysely';
import { type Db, liftStatementDeadline } from '../../store/db.ts';

export const RECORD_PARTITIONS_QUEUE = 'data.record-partitions';

/** Cron (UTC): daily, in the small hours; three months of slack make a missed day harmless. */
export const RECORD_PARTITIONS_SCHEDULE = '23 3 * * *';

/** Months after the current one that always have their partition. */
export const MONTHS_AHEAD = 3;

/** `data_records_2024_03` for the month starting 2024-03-01 (the migration's names). */
export function partitionNameOf(month: string): string {
  return `data_records_${month.slice(0, 4)}_${month.slice(5, 7)}`;
}

/** The first day of the month `offset` months after the month of `day` (ISO dates). */
export function monthStart(day: string, offset = 0): string {
  const [year, month] = [Number(day.slice(0, 4)), Number(day.slice(5, 7))];
  return new Date(Date.UTC(year, month - 1 + offset, 1)).toISOString().slice(0, 10);
}

/**
 * Makes sure the month of `now` and the `ahead` months after it have their partitions. A month the
 * default partition already holds rows for is carved out of it: a standalone table is created,
 * the month's rows are moved into it, and it is attached (PostgreSQL checks that the default then
 * holds none of that month). Each month in its own transaction. Returns the months it created.
 */
export async function ensureRecordPartitions(db: Db, now: Date, ahead = MONTHS_AHEAD): Promise<string[]> {
  const existing = new Set(
    (
      await sql<{ name: string }>`
        SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'data_records'::regclass`.execute(db)
    ).rows.map((row) => row.name),
  );
  const today = now.toISOString().slice(0, 10);
  const created: string[] = [];
  for (let offset = 0; offset <= ahead; offset += 1) {
    const from = monthStart(today, offset);
    const name = partitionNameOf(from);
    if (existing.has(name)) continue;
    await carveMonth(db, name, from, monthStart(from, 1));
    created.push(from);
  }
  return created;
}

async function carveMonth(db: Db, name: string, from: string, to: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Moving a month out of the default partition and attaching it scans it: no request deadline.
    await liftStatementDeadline(trx);
    const table = sql.id(name);
    await sql`CREATE TABLE ${table} (LIKE data_records INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`.execute(
      trx,
    );
    await sql`
      WITH moved AS (
        DELETE FROM data_records_default WHERE anchor_day >= ${from}::date AND anchor_day < ${to}::date
        RETURNING *)
      INSERT INTO ${table} SELECT * FROM moved`.execute(trx);
    // Attaching adds the parent's key, index and foreign key to the new table.
    await sql`
      ALTER TABLE data_records ATTACH PARTITION ${table}
      FOR VALUES FROM (${sql.lit(from)}) TO (${sql.lit(to)})`.execute(trx);
  });
}
