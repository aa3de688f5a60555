import { type Kysely, sql } from 'kysely';

/**
 * A day's companions (features/day-companions, provider-kit/day-companions.ts): per connection,
 * unified type and local day, the latest copy of each summary a connector's fetches brought (one
 * row per kind and summary id), so a notification that brings some kinds of a day is normalized
 * with the others the day already had. `delivered_at` orders the copies (an earlier one never
 * replaces a later); `kept_at` is when a row was last written: a day none of whose rows was
 * written for the retention period goes (day_companions_by_age). The summary is the provider's
 * JSON text, kept as brought (read back whole, never queried inside). Goes with its connection
 * (deauthentication, deletion, erasure, and so with its developer), like the records.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE day_companions (
      connection_id uuid NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      type text NOT NULL,
      day date NOT NULL,
      kind text NOT NULL,
      summary_id text NOT NULL,
      delivered_at timestamptz NOT NULL,
      kept_at timestamptz NOT NULL,
      summary text NOT NULL,
      PRIMARY KEY (connection_id, type, day, kind, summary_id)
    )`.execute(db);
  await sql`CREATE INDEX day_companions_by_age ON day_companions (kept_at)`.execute(db);
}
