import { type Kysely, sql } from 'kysely';

/**
 * Two things a destination could not say before:
 * - every secret a rotation replaced keeps signing until its own overlap ends (one previous
 *   secret in a column lost the others at the next rotation): `webhook_retired_secrets`, filled
 *   with each destination's previous secret, after which the two columns go;
 * - its developer is suspended, so its deliveries are held until the developer is resumed:
 *   `suspended_at`, set for the developers suspended now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_retired_secrets (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      destination_id uuid NOT NULL REFERENCES webhook_destinations (id) ON DELETE CASCADE,
      secret text NOT NULL,
      retired_at timestamptz NOT NULL,
      signs_until timestamptz NOT NULL
    )`.execute(db);
  await sql`
    CREATE INDEX webhook_retired_secrets_by_destination
    ON webhook_retired_secrets (destination_id, signs_until)`.execute(db);
  await sql`
    INSERT INTO webhook_retired_secrets (destination_id, secret, retired_at, signs_until)
    SELECT id, secret_previous, secret_rotated_at, secret_rotated_at + interval '24 hours'
    FROM webhook_destinations
    WHERE secret_previous IS NOT NULL AND secret_rotated_at IS NOT NULL`.execute(db);
  await sql`
    ALTER TABLE webhook_destinations
      DROP COLUMN secret_previous,
      DROP COLUMN secret_rotated_at,
      ADD COLUMN suspended_at timestamptz`.execute(db);
  await sql`
    UPDATE webhook_destinations AS d SET suspended_at = now()
    FROM developers AS v
    WHERE v.id = d.developer_id AND v.status = 'suspended'`.execute(db);
}
