import { type Kysely, sql } from 'kysely';

/**
 * A delivery's first attempt, when it succeeded, is kept on the delivery's own row instead of as
 * a row of `delivery_attempts` (issue 44, deliveries/s). Nearly every delivery is one attempt that
 * succeeded; logging it as a row of its own was a heap tuple and three index entries per delivery
 * (primary key, by delivery, by developer) written in the same statement that already rewrites the
 * delivery's row: a third of the database's work in recording an outcome (bench/FINDINGS.md,
 * deliver8). The attempt log as the API and the dashboard show it does not change: the delivery
 * log lists such an attempt from these columns (attempt 1, outcome `delivered`, no error, no next
 * attempt), merged with the rows in the same order; attempts that failed, were retried or came
 * after a resend are rows as before.
 *
 * `deliveries_first_attempts` lets the healthcheck's attempts per hour count them per developer
 * as `delivery_attempts_by_developer` counts the rows (one entry, only for deliveries that have
 * one). The columns are null on every delivery written before, whose attempts are all rows.
 *
 * The unique indexes on `events.seq` and `deliveries.seq` go: no query looks a row up by its
 * position alone (the logs page by developer or user and position, through their own indexes),
 * identity columns are unique by construction, and each was an index entry per event and two per
 * delivery (its insert, and its outcome, which is not a HOT update): in
 * `bench/delivery-statements.ts` 2 of the 11 WAL records per delivery of storing events and one
 * of the 8 of recording outcomes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE deliveries
      ADD COLUMN first_attempt_at timestamptz,
      ADD COLUMN first_attempt_url text,
      ADD COLUMN first_attempt_ms integer,
      ADD COLUMN first_attempt_status integer`.execute(db);
  await sql`
    CREATE INDEX deliveries_first_attempts ON deliveries (developer_id, first_attempt_at)
      WHERE first_attempt_at IS NOT NULL`.execute(db);
  await sql`ALTER TABLE events DROP CONSTRAINT events_seq_key`.execute(db);
  await sql`ALTER TABLE deliveries DROP CONSTRAINT deliveries_seq_key`.execute(db);
}
