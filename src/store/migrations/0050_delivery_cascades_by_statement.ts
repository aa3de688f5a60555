import { type Kysely, sql } from 'kysely';

/**
 * The delivery engine's three hot inserts lose their per-row foreign-key checks; what the keys
 * did on delete is done once per statement by triggers instead (issue 44, deliveries/s).
 *
 * A foreign key checks every inserted row with a query of its own (a row-level trigger locking
 * the referenced row): one for each event (its developer), one for each delivery (its event) and
 * one for each logged attempt (its delivery). In `bench/delivery-statements.ts` those checks were
 * about a third of the database's CPU per delivery: storing events and deliveries 50 → 37 µs
 * without the delivery's key and → 22 µs without the event's too; recording outcomes with their
 * attempts 70 → 43 µs without the attempt's key (two runs each, load 12-16). Dropping the indexes
 * no query needs moved nothing measurable (bench/FINDINGS.md, fifth pass).
 *
 * The references still hold, by construction of the only statements that insert those rows:
 * - an event is emitted for a developer the emitting request or job has just read (developers are
 *   never deleted by the service; an operator's delete still takes its events, below);
 * - a delivery is inserted in the same statement as its event (`insertEvents`, which refuses a
 *   delivery whose event is not in the batch), or after it (the previous release's mirror);
 * - an attempt is logged only for a delivery the same statement has just updated, and so locked
 *   (`recordOutcomes`), or that exists (the mirror).
 *
 * Deleting keeps cascading: a developer takes its events, an event its deliveries, a delivery its
 * attempts, each by one statement over the deleted rows (a transition table), through the indexes
 * the keys used (`deliveries (event_id, destination_id)`, `delivery_attempts (delivery_id, …)`).
 * `deliveries.destination_id` keeps its key: it is null for the primary webhook, whose deliveries
 * (the bulk) it never checks. The previous release, still running beside this one, neither relies
 * on the keys' errors nor deletes otherwise than through these tables, so this needs no contract
 * step. The functions keep the schema they were created in (a store may live in a schema of its
 * own), so a delete from a session with another search path still finds the tables.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_delivery_id_fkey`.execute(db);
  await sql`ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_fkey`.execute(db);
  await sql`ALTER TABLE events DROP CONSTRAINT events_developer_id_fkey`.execute(db);

  // One function for the three: its trigger arguments name the table and the column referring to the
  // deleted rows (`gone`, the statement's transition table, which its dynamic statement sees too).
  await sql`
    CREATE FUNCTION delete_rows_referring_to_gone()
      RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      EXECUTE format('DELETE FROM %I WHERE %I IN (SELECT id FROM gone)', TG_ARGV[0], TG_ARGV[1]);
      RETURN NULL;
    END $$`.execute(db);
  for (const [parent, child, column, trigger] of [
    ['developers', 'events', 'developer_id', 'developers_delete_events'],
    ['events', 'deliveries', 'event_id', 'events_delete_deliveries'],
    ['deliveries', 'delivery_attempts', 'delivery_id', 'deliveries_delete_attempts'],
  ] as const) {
    await sql`
      CREATE TRIGGER ${sql.raw(trigger)} AFTER DELETE ON ${sql.raw(parent)}
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT
        EXECUTE FUNCTION delete_rows_referring_to_gone(${sql.lit(child)}, ${sql.lit(column)})`.execute(db);
  }
}
