import { type Kysely, sql } from 'kysely';

/**
 * A developer's webhook destination (URL, signing secrets, health) moves off `developers` into a
 * table of its own, owned by the webhook engine: one per developer today, several possible later.
 * Every existing developer gets its row with every setting and secret as it was (secrets stay
 * sealed as they are; nothing is re-encrypted), then the columns leave `developers`.
 *
 * `environment` is copied from the developer: it decides which destination URLs are allowed, and
 * the engine reads it here rather than from another module's table.
 *
 * The outbox's `is_data` becomes `suppressible`: the engine no longer knows what a data event is,
 * only that the emitter marked the event as one its user's state may withhold.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_destinations (
      id uuid PRIMARY KEY,
      developer_id text NOT NULL UNIQUE REFERENCES developers (id) ON DELETE CASCADE,
      environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
      url text,
      secret text NOT NULL,
      secret_previous text,
      secret_rotated_at timestamptz,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'failing', 'disabled')),
      consecutive_failures integer NOT NULL DEFAULT 0,
      failing_since timestamptz,
      disabled_at timestamptz,
      last_success_at timestamptz,
      last_failure_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    INSERT INTO webhook_destinations (id, developer_id, environment, url, secret, secret_previous,
      secret_rotated_at, status, consecutive_failures, failing_since, disabled_at, last_success_at,
      last_failure_at, created_at)
    SELECT gen_random_uuid(), id, environment, webhook_url, webhook_secret, webhook_secret_previous,
      webhook_secret_rotated_at, webhook_status, webhook_consecutive_failures, webhook_failing_since,
      webhook_disabled_at, webhook_last_success_at, webhook_last_failure_at, created_at
    FROM developers`.execute(db);
  await sql`
    ALTER TABLE developers
      DROP COLUMN webhook_url,
      DROP COLUMN webhook_secret,
      DROP COLUMN webhook_secret_previous,
      DROP COLUMN webhook_secret_rotated_at,
      DROP COLUMN webhook_status,
      DROP COLUMN webhook_consecutive_failures,
      DROP COLUMN webhook_failing_since,
      DROP COLUMN webhook_disabled_at,
      DROP COLUMN webhook_last_success_at,
      DROP COLUMN webhook_last_failure_at`.execute(db);

  await sql`ALTER TABLE webhook_events RENAME COLUMN is_data TO suppressible`.execute(db);
  await sql`ALTER INDEX webhook_events_data_by_user RENAME TO webhook_events_suppressible_by_user`.execute(
    db,
  );
}
