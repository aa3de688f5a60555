import { type Kysely, sql } from 'kysely';

/**
 * Erasure receipts (features/connecting): when a user (connection) is deauthenticated, what was
 * deleted, as row counts per table, when and for which user id. No health data and no foreign key
 * to `connections`: a receipt outlives its user (it is the proof that the user is gone). It goes
 * with its developer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE erasure_receipts (
      id text PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      user_id uuid NOT NULL,
      provider text NOT NULL,
      deleted_at timestamptz NOT NULL,
      deleted_rows jsonb NOT NULL
    )
  `.execute(db);
  await sql`CREATE INDEX erasure_receipts_by_user ON erasure_receipts (developer_id, user_id)`.execute(db);
}
