import { type Kysely, sql } from 'kysely';

/**
 * Connecting end users: OAuth sessions in flight, the provider tokens they yield, hosted widget
 * sessions, per-developer provider choices and mobile-SDK auth tokens. Everything tied to a
 * user cascades with it, so deleting a user (deauthentication, reconnection) leaves nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE widget_sessions (
      id uuid PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      providers text[],
      language text NOT NULL,
      reference_id text,
      success_redirect_url text,
      failure_redirect_url text,
      expires_at timestamptz NOT NULL,
      completed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  // `state` is stored hashed: it is a bearer secret for completing the flow.
  await sql`
    CREATE TABLE auth_sessions (
      id uuid PRIMARY KEY,
      state_hash text NOT NULL UNIQUE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      provider text NOT NULL,
      code_verifier text,
      redirect_uri text NOT NULL,
      requested_scopes text,
      success_redirect_url text,
      failure_redirect_url text,
      reference_id text,
      language text NOT NULL,
      widget_session_id uuid REFERENCES widget_sessions (id) ON DELETE SET NULL,
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX auth_sessions_by_user ON auth_sessions (user_id)`.execute(db);
  await sql`CREATE INDEX auth_sessions_open_by_expiry ON auth_sessions (expires_at) WHERE consumed_at IS NULL`.execute(
    db,
  );

  await sql`
    CREATE TABLE provider_tokens (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      access_token text NOT NULL,
      refresh_token text,
      expires_at timestamptz,
      scopes text,
      provider_user_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  // Rows only where a developer deviates from the deployment's default (every enabled provider).
  await sql`
    CREATE TABLE developer_providers (
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      provider text NOT NULL,
      enabled boolean NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (developer_id, provider)
    )`.execute(db);

  await sql`
    CREATE TABLE sdk_auth_tokens (
      token_hash text PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}
