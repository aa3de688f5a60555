import { type Kysely, sql } from 'kysely';

/**
 * Recording a delivery's outcome becomes a HOT update (issue 44, deliveries/s): a new version of
 * the row on the same page, with no new index entry. PostgreSQL makes an update HOT only when no
 * indexed column changes, a partial index's predicate columns included, and the page has room.
 * Two indexes named columns every outcome changes, so not one outcome of 20,000 was HOT and each
 * wrote an entry in all five indexes the new row belonged to (bench/delivery-statements.ts:
 * recording 31 against 21 µs of database CPU and 6.9 against 2.1 WAL records per delivery,
 * measured as a variant of the schema; bench/FINDINGS.md, deliver8):
 *
 * - `deliveries_pending_by_update (updated_at) WHERE status = 'pending'`, the stuck sweeper's. It
 *   now finds pending deliveries through two columns a settling first attempt leaves as they are:
 *   those due again (a retry, a resend, a release, an earlier sweep: `next_attempt_at` set) by the
 *   new `deliveries_due`, whose settling outcome clears `next_attempt_at` (rare, and not HOT); and
 *   those still awaiting their first attempt by `created_at` (`deliveries_by_age`), from where its
 *   last pass got to (`delivery_sweeps`), so each is looked at about once (stuck-sweeper.ts).
 * - `deliveries_first_attempts (developer_id, first_attempt_at)`, the healthcheck's count of first
 *   attempts kept on the row (0053). It now counts them through `deliveries_by_developer_age
 *   (developer_id, created_at)`, written once when the delivery is: a first attempt is kept on the
 *   row only when it was made within 15 minutes of the delivery's creation (outcome-rows.ts; a
 *   later one, after a hold say, is a row of the attempt log as before), so the deliveries created
 *   in the two hours and 15 minutes before the count hold every kept attempt it counts. The kept
 *   attempts that broke that rule before it existed, and that a count could still see (the last
 *   three hours), become rows here, found through the index before it goes.
 *
 * Pages are filled to 40 % (was 80 %) so the new version finds room beside the old: the row grows
 * by its first attempt's columns, and the outcomes of a page's deliveries come in one statement,
 * before any old version can be pruned. In bench/delivery-statements.ts (a 22-character URL; real
 * ones are longer) 79 % of outcomes were HOT at 50 %, 93 % at 45 %, all at 40 %. The price is
 * space: the table takes about twice the pages it did for the same rows (it is pruned with its
 * events). Only pages written from now on are filled so; a table rewrite is not worth its lock.
 *
 * The previous release, while it still runs beside this one, reads none of these indexes (its
 * tables are `webhook_events`, mirrored by 0042's triggers, which this does not touch), and its
 * delivery log reads a kept first attempt as 0053 left it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE delivery_sweeps (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      first_attempts_swept_to timestamptz NOT NULL
    )`.execute(db);
  // The sweeper has looked at nothing yet: it starts at the oldest pending delivery, found while
  // the pending index still exists.
  await sql`
    INSERT INTO delivery_sweeps (first_attempts_swept_to)
      SELECT coalesce(min(created_at), now()) FROM deliveries WHERE status = 'pending'`.execute(db);

  await sql`
    WITH late AS (
      SELECT id, developer_id, first_attempt_at, first_attempt_url, first_attempt_ms, first_attempt_status
      FROM deliveries
      WHERE first_attempt_at IS NOT NULL AND first_attempt_at >= now() - interval '3 hours'
        AND first_attempt_at > created_at + interval '15 minutes'),
    logged AS (
      INSERT INTO delivery_attempts (delivery_id, developer_id, attempt, url, attempted_at, duration_ms,
        status_code, error, outcome, next_attempt_at)
      SELECT id, developer_id, 1, coalesce(first_attempt_url, ''), first_attempt_at, coalesce(first_attempt_ms, 0),
        first_attempt_status,
        NULL, 'delivered', NULL
      FROM late)
    UPDATE deliveries AS d SET first_attempt_at = NULL, first_attempt_url = NULL, first_attempt_ms = NULL,
      first_attempt_status = NULL
    FROM late WHERE d.id = late.id`.execute(db);

  await sql`CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX deliveries_by_developer_age ON deliveries (developer_id, created_at)`.execute(db);
  await sql`DROP INDEX deliveries_pending_by_update`.execute(db);
  await sql`DROP INDEX deliveries_first_attempts`.execute(db);
  await sql`ALTER TABLE deliveries SET (fillfactor = 40)`.execute(db);
}
