import { type Kysely, sql } from 'kysely';

/**
 * The developer dashboard (/dashboard):
 * - `dashboard_sessions`: signed-in browsers. Only a SHA-256 hash of the session id is kept, so
 *   a copy of the table signs nobody in; a developer session remembers the API key it was made
 *   with, so revoking that key ends it.
 * - `audit_log`: who did what through the dashboard (developer or operator, session, action,
 *   target, time).
 * - `widget_provider_selections`: the providers a developer's widget offers when a session names
 *   none (the contract's "sources selected in the developer's dashboard").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE dashboard_sessions (
      id_hash text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('developer', 'operator')),
      developer_id text REFERENCES developers (id) ON DELETE CASCADE,
      api_key_id text REFERENCES api_keys (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      CHECK ((kind = 'developer') = (developer_id IS NOT NULL AND api_key_id IS NOT NULL))
    )`.execute(db);
  await sql`CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at)`.execute(db);
  await sql`
    CREATE TABLE audit_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      actor text NOT NULL CHECK (actor IN ('developer', 'operator')),
      developer_id text,
      session_ref text NOT NULL,
      action text NOT NULL,
      target text,
      at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX audit_log_by_developer ON audit_log (developer_id, at DESC)`.execute(db);
  await sql`
    CREATE TABLE widget_provider_selections (
      developer_id text PRIMARY KEY REFERENCES developers (id) ON DELETE CASCADE,
      providers text[] NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
}
