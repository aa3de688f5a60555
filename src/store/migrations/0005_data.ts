import { type Kysely, sql } from 'kysely';

/**
 * The unified data store. Every table hangs off `users` with ON DELETE CASCADE, so deleting a
 * user (deauthentication, reconnection) deletes its records, raw payloads, sync coverage and
 * rate budget with it.
 *
 * `summary` and `samples` are `json`, not `jsonb`: the store never looks inside them (identity
 * and time live in their own columns), and `json` keeps the exact text we wrote, so a read can
 * stream `summary::text` straight into the response without parsing or re-serializing it.
 * Sample arrays sit in their own column so a `with_samples=false` read never loads them;
 * `sample_splices` says where each array goes back into the summary text (see records.ts), so a
 * `with_samples=true` read merges by slicing text instead of parsing megabytes of samples.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE data_records (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      type text NOT NULL,
      identity_key text NOT NULL,
      anchor_at timestamptz NOT NULL,
      anchor_day date NOT NULL,
      summary json NOT NULL,
      samples json,
      sample_splices integer[],
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, type, identity_key)
    )`.execute(db);
  // Range reads page through this index with (anchor_at, identity_key) keysets.
  await sql`CREATE INDEX data_records_by_anchor ON data_records (user_id, type, anchor_at, identity_key)`.execute(
    db,
  );

  await sql`
    CREATE TABLE raw_payloads (
      id bigserial PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      provider text NOT NULL,
      type text NOT NULL,
      fetched_at timestamptz NOT NULL,
      payload jsonb NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX raw_payloads_by_user ON raw_payloads (user_id, type, fetched_at)`.execute(db);
  await sql`CREATE INDEX raw_payloads_by_age ON raw_payloads (fetched_at)`.execute(db);

  // Local calendar days [start_day, end_day) already fetched from the provider. Settled ranges
  // are final; recent ones (today, yesterday) count only while fresh, since data still arrives.
  await sql`
    CREATE TABLE sync_coverage (
      id bigserial PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      type text NOT NULL,
      start_day date NOT NULL,
      end_day date NOT NULL CHECK (end_day > start_day),
      settled boolean NOT NULL,
      synced_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX sync_coverage_by_user ON sync_coverage (user_id, type, start_day)`.execute(db);

  // The r2 budget: one row per user and fixed UTC hour, updated by a single conditional upsert.
  await sql`
    CREATE TABLE rate_buckets (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      bucket_start timestamptz NOT NULL,
      used integer NOT NULL CHECK (used >= 0),
      PRIMARY KEY (user_id, bucket_start)
    )`.execute(db);
  await sql`CREATE INDEX rate_buckets_by_age ON rate_buckets (bucket_start)`.execute(db);
}
