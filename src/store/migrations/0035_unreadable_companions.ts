import { type Kysely, sql } from 'kysely';

/**
 * Companion kinds a connection's provider refused to serve (features/data): a provider enables
 * its data kinds per partner, and a kind it does not serve this deployment answers 4xx on its own
 * path. Recorded once per connection and kind, then skipped by every fetch, so a record without
 * its companions is still served; the user's dashboard page shows the gap. Goes with its
 * connection.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE unreadable_companions (
      user_id uuid NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      kind text NOT NULL,
      type text NOT NULL,
      status integer NOT NULL,
      detail text NOT NULL,
      recorded_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, kind)
    )
  `.execute(db);
}
