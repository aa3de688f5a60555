import { type Kysely, sql } from 'kysely';

/**
 * Routes (features/routes): GPS route templates a developer stores once, and the routes pushed
 * from them to a user's provider (the vendor's Routes API, docs/wire-contract.md#routes). A
 * pushed route keeps the provider's id so a cascade update or a delete can reach it again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE route_templates (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      route jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )
  `.execute(db);
  await sql`CREATE INDEX route_templates_by_developer ON route_templates (developer_id, id)`.execute(db);
  await sql`
    CREATE TABLE pushed_routes (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      route_id bigint REFERENCES route_templates (id) ON DELETE SET NULL,
      user_id uuid NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      provider text NOT NULL,
      provider_route_id text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )
  `.execute(db);
  await sql`CREATE INDEX pushed_routes_by_user ON pushed_routes (user_id, id)`.execute(db);
  await sql`CREATE INDEX pushed_routes_by_route ON pushed_routes (route_id)`.execute(db);
}
