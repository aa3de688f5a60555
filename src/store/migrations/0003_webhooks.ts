import { type Kysely, sql } from 'kysely';

/**
 * Webhook delivery: the outbox (`webhook_events`, one row per event with the exact bytes to send),
 * the attempt log, and the destination's signing-secret rotation and health on `developers`.
 *
 * `user_id` is plain text with no foreign key: a deleted user must not take the delivery log with
 * it (a `deauth` event outlives the user it describes).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE developers
      ADD COLUMN webhook_secret_previous text,
      ADD COLUMN webhook_secret_rotated_at timestamptz,
      ADD COLUMN webhook_status text NOT NULL DEFAULT 'active'
        CHECK (webhook_status IN ('active', 'failing', 'disabled')),
      ADD COLUMN webhook_consecutive_failures integer NOT NULL DEFAULT 0,
      ADD COLUMN webhook_failing_since timestamptz,
      ADD COLUMN webhook_disabled_at timestamptz,
      ADD COLUMN webhook_last_success_at timestamptz,
      ADD COLUMN webhook_last_failure_at timestamptz`.execute(db);

  await sql`
    CREATE TABLE webhook_events (
      id text PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      type text NOT NULL,
      user_id text,
      reference text,
      is_data boolean NOT NULL,
      body text NOT NULL,
      status text NOT NULL
        CHECK (status IN ('pending', 'delivered', 'rejected', 'failed', 'held', 'dropped')),
      generation integer NOT NULL DEFAULT 0,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      last_status_code integer,
      last_error text,
      held_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      delivered_at timestamptz
    ) WITH (fillfactor = 80)`.execute(db);
  // No index mentions a column that recording an attempt changes (status, attempts, ...) and pages
  // keep spare room, so an outcome is a HOT update that writes no index entry. Held events are
  // found through held_at, which changes only when an event is held or released.
  await sql`CREATE INDEX webhook_events_by_developer ON webhook_events (developer_id, seq DESC)`.execute(db);
  await sql`CREATE INDEX webhook_events_held ON webhook_events (developer_id, seq) WHERE held_at IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_events_data_by_user ON webhook_events (user_id) WHERE is_data`.execute(db);
  await sql`CREATE INDEX webhook_events_by_age ON webhook_events (created_at)`.execute(db);

  await sql`
    CREATE TABLE webhook_attempts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      event_id text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
      developer_id text NOT NULL,
      attempt integer NOT NULL,
      url text NOT NULL,
      attempted_at timestamptz NOT NULL,
      duration_ms integer NOT NULL,
      status_code integer,
      error text,
      outcome text NOT NULL CHECK (outcome IN ('delivered', 'retry', 'rejected', 'failed')),
      next_attempt_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX webhook_attempts_by_event ON webhook_attempts (event_id, attempt)`.execute(db);
  await sql`CREATE INDEX webhook_attempts_by_developer ON webhook_attempts (developer_id, attempted_at)`.execute(
    db,
  );
  await sql`
    CREATE INDEX webhook_attempts_failures ON webhook_attempts (developer_id, attempted_at)
      WHERE outcome <> 'delivered'`.execute(db);
}
