import { type Kysely, sql } from 'kysely';

/**
 * A user is one connection of one end user to one provider, owned by one developer (the
 * wire contract's `TerraUser`). It exists from the moment an auth link is made (`pending`)
 * so the developer gets a `user_id` before consent completes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      provider text NOT NULL,
      status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'active', 'broken', 'revoked')),
      active boolean NOT NULL DEFAULT true,
      reference_id text,
      scopes text,
      provider_user_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_webhook_update timestamptz,
      last_polled_at timestamptz,
      most_recent_data_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX users_by_developer ON users (developer_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX users_by_reference ON users (developer_id, reference_id) WHERE reference_id IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX users_by_provider_account ON users (provider, provider_user_id) WHERE provider_user_id IS NOT NULL`.execute(
    db,
  );
}
