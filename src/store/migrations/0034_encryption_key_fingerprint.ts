import { type Kysely, sql } from 'kysely';

/**
 * The fingerprint of the encryption key (store/key-fingerprint.ts): one row, written by the first
 * start after this migration, so a later start with another ENCRYPTION_KEY fails loudly instead of
 * serving with secrets it cannot open.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE encryption_key_fingerprint (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      fingerprint text NOT NULL,
      recorded_at timestamptz NOT NULL
    )
  `.execute(db);
}
