import { type Kysely, sql } from 'kysely';

/**
 * `POST /v2/auth/tokens?reference_id=` binds the SDK token to a reference id (features/connecting):
 * the connection the SDK makes with it carries that reference, whatever the SDK sends.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sdk_auth_tokens ADD COLUMN reference_id text`.execute(db);
}
