import { type Kysely, sql } from 'kysely';

/**
 * The connector framework's shared state. It lives in the database (not in process memory) so
 * several API and worker processes agree on it: refresh-failure counts, the app-wide request
 * budgets each provider grants us, backfill progress, and the push subscriptions held at
 * providers. Rows tied to a user cascade with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Consecutive failed refreshes: persisted so "broken after K failures" holds across processes
  // and restarts (Nango's refresh exhaustion).
  await sql`
    CREATE TABLE connector_token_health (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      consecutive_failures integer NOT NULL DEFAULT 0,
      last_error text,
      last_failure_at timestamptz,
      refreshed_at timestamptz
    )`.execute(db);

  // Fixed windows per scope (`<PROVIDER>` app-wide, `<PROVIDER>:<user id>` a user's share),
  // each incremented by one conditional upsert so parallel processes never overspend.
  await sql`
    CREATE TABLE connector_request_budget (
      scope text NOT NULL,
      window_seconds integer NOT NULL,
      window_start timestamptz NOT NULL,
      used integer NOT NULL CHECK (used >= 0),
      PRIMARY KEY (scope, window_seconds, window_start)
    )`.execute(db);
  await sql`CREATE INDEX connector_request_budget_by_age ON connector_request_budget (window_start)`.execute(
    db,
  );

  // The provider said "stop until": every process holds off until then.
  await sql`
    CREATE TABLE connector_provider_pauses (
      provider text PRIMARY KEY,
      until timestamptz NOT NULL,
      reason text NOT NULL
    )`.execute(db);

  // One row per user and data type: [start_day, end_day) is fetched newest first, chunk by
  // chunk; [cursor_day, end_day) is done. A crash resumes at the cursor.
  await sql`
    CREATE TABLE connector_backfills (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      type text NOT NULL,
      start_day date NOT NULL,
      end_day date NOT NULL,
      cursor_day date NOT NULL,
      chunk_days integer NOT NULL CHECK (chunk_days > 0),
      status text NOT NULL,
      chunks_done integer NOT NULL DEFAULT 0,
      chunks_total integer NOT NULL,
      last_error text,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, type)
    )`.execute(db);

  // Push subscriptions Tributary created at a provider (per app, not per user).
  await sql`
    CREATE TABLE connector_subscriptions (
      provider text NOT NULL,
      external_id text NOT NULL,
      data_type text,
      event_type text,
      callback_url text NOT NULL,
      expires_at timestamptz,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (provider, external_id)
    )`.execute(db);
}
