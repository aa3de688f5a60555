import { type Kysely, sql } from 'kysely';

/**
 * A destination is a kind plus settings (docs/destinations.md): the webhook is one kind, the
 * developer's PostgreSQL, S3-compatible object storage and a NATS JetStream stream are others.
 * Every kind shares the webhook engine's outbox, attempt log, retry schedule, health, hold and
 * replay, so they stay in `webhook_destinations`:
 *
 * - `kind` (every existing row is a webhook) and `settings` (the kind's settings as JSON, sealed
 *   with the service's encryption key; null for webhooks, whose URL and secret have their columns).
 * - A developer keeps exactly one webhook destination (a partial unique index replaces the unique
 *   `developer_id`); it may have any number of destinations of the other kinds.
 * - `secret` is the webhook's signing secret: other kinds have none.
 * - `webhook_events.destination_id`: null for the developer's webhook (every existing event);
 *   set on the copy of an event made for one other destination. Deleting a destination deletes
 *   its copies and their attempts.
 *
 * Expand-only for the previous release as long as no destination of another kind exists: it reads
 * a developer's destination by developer alone and knows no copies, so such destinations are
 * created once every process runs this release (docs/destinations.md, "Upgrading").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_destinations
      ADD COLUMN kind text NOT NULL DEFAULT 'webhook'
        CHECK (kind ~ '^[a-z][a-z0-9_]{0,31}$'),
      ADD COLUMN settings text,
      ADD COLUMN name text,
      ALTER COLUMN secret DROP NOT NULL,
      DROP CONSTRAINT webhook_destinations_developer_id_key`.execute(db);
  await sql`
    CREATE UNIQUE INDEX webhook_destinations_one_webhook ON webhook_destinations (developer_id)
      WHERE kind = 'webhook'`.execute(db);
  await sql`
    CREATE INDEX webhook_destinations_other_kinds ON webhook_destinations (developer_id)
      WHERE kind <> 'webhook'`.execute(db);
  await sql`
    ALTER TABLE webhook_events
      ADD COLUMN destination_id uuid REFERENCES webhook_destinations (id) ON DELETE CASCADE`.execute(db);
  await sql`
    CREATE INDEX webhook_events_by_destination ON webhook_events (destination_id, seq)
      WHERE destination_id IS NOT NULL`.execute(db);
}
