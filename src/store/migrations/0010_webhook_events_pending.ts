import { type Kysely, sql } from 'kysely';

/**
 * The stuck-event sweeper (features/webhooks/stuck-sweeper.ts) looks for pending events whose attempt
 * came due long ago. Pending events are the few in flight among the millions a month of retention
 * keeps, so a partial index on them keeps that query cheap without touching delivered rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_events_pending_by_update ON webhook_events (updated_at) WHERE status = 'pending'`.execute(
    db,
  );
}
