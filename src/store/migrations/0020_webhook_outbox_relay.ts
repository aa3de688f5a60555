import { type Kysely, sql } from 'kysely';

/**
 * A first attempt is no longer queued in the emitting transaction: the event is stored marked
 * `awaiting_job`, and the outbox relay (features/webhooks/relay.ts) queues the marked events in
 * batches after they commit. One queue job per emitted event cost more than the event itself
 * (on embedded PGlite three times the outbox insert), which capped one-transaction-per-event
 * emitters at ~200 events/s. The partial index keeps the relay's look-up to the few marked rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_events ADD COLUMN awaiting_job boolean NOT NULL DEFAULT false`.execute(db);
  await sql`CREATE INDEX webhook_events_awaiting_job ON webhook_events (seq) WHERE awaiting_job`.execute(db);
}
