import { type Kysely, sql } from 'kysely';

/**
 * What bounds the state public endpoints can create:
 * - `request_windows` (features/limits): fixed-window counters per scope (a hosted page's sender
 *   address, a widget session, an unsigned notification source), shared by every process;
 * - `connector_notification_receipts` (features/sync): signed notifications already taken in, so a
 *   replay within the retention window is not queued again;
 * - `connector_pending_refetches` (features/sync): at most one pending refetch per account and
 *   data kind for providers whose notifications are unsigned.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE request_windows (
      scope text NOT NULL,
      window_seconds integer NOT NULL CHECK (window_seconds > 0),
      window_start timestamptz NOT NULL,
      hits integer NOT NULL CHECK (hits > 0),
      PRIMARY KEY (scope, window_seconds, window_start)
    )`.execute(db);
  await sql`CREATE INDEX request_windows_by_start ON request_windows (window_start)`.execute(db);

  await sql`
    CREATE TABLE connector_notification_receipts (
      provider text NOT NULL,
      fingerprint text NOT NULL,
      received_at timestamptz NOT NULL,
      PRIMARY KEY (provider, fingerprint)
    )`.execute(db);
  await sql`
    CREATE INDEX connector_notification_receipts_by_age
    ON connector_notification_receipts (received_at)`.execute(db);

  await sql`
    CREATE TABLE connector_pending_refetches (
      provider text NOT NULL,
      provider_user_id text NOT NULL,
      data_kind text NOT NULL,
      notification jsonb NOT NULL,
      version integer NOT NULL DEFAULT 1,
      queued_at timestamptz NOT NULL,
      PRIMARY KEY (provider, provider_user_id, data_kind)
    )`.execute(db);
}
