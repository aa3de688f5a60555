import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE developers (
      id text PRIMARY KEY,
      name text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
      order_api_access boolean NOT NULL DEFAULT false,
      hourly_days_limit integer CHECK (hourly_days_limit > 0),
      webhook_url text,
      webhook_secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      display_prefix text NOT NULL,
      hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX api_keys_by_developer ON api_keys (developer_id) WHERE revoked_at IS NULL`.execute(
    db,
  );
}
