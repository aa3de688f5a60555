import { type Kysely, sql } from 'kysely';

/**
 * SDK uploads are limited per connection, among other things by how many of its uploads still
 * wait for their normalization job (features/mobile/service.ts `admitUpload`): that count is read
 * on every upload, by user.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX mobile_uploads_by_user ON mobile_uploads (user_id)`.execute(db);
}
