import { type Kysely, sql } from 'kysely';

/**
 * Provider settings the operator stored from the dashboard (provider-access/stored-settings.ts):
 * one row per variable (a provider id + `CLIENT_ID`), its value sealed with the service key like
 * provider tokens. The environment wins over a stored value; no row means the environment alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE provider_settings (
      provider text NOT NULL,
      name text NOT NULL,
      value_sealed text NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (provider, name)
    )
  `.execute(db);
}
