import { type Kysely, sql } from 'kysely';

/**
 * Mobile health sources (features/mobile): the per-connection upload token of an SDK connection,
 * uploads waiting for their normalization job, the platform samples they carry (one row per
 * platform record, keyed by its id, so a re-sent record replaces itself), the local days whose
 * unified records must be rebuilt, and Apple Health export imports with their progress.
 * Everything of a user cascades with it: deauthentication deletes the upload token too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The upload token is a bearer secret: only its SHA-256 is kept.
  await sql`
    CREATE TABLE mobile_connections (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      upload_token_hash text NOT NULL UNIQUE,
      platform text NOT NULL,
      device json,
      created_at timestamptz NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE mobile_uploads (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      body text NOT NULL,
      received_at timestamptz NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE mobile_samples (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      sample_id text NOT NULL,
      kind text NOT NULL,
      local_day date NOT NULL,
      start_at timestamptz NOT NULL,
      end_at timestamptz NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (user_id, sample_id)
    )`.execute(db);
  await sql`CREATE INDEX mobile_samples_by_day ON mobile_samples (user_id, local_day)`.execute(db);

  // `generation` grows each time a day is marked again, so a rebuild that read an older mark
  // clears only that one and the day is rebuilt again with the newer samples.
  await sql`
    CREATE TABLE mobile_dirty_days (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      local_day date NOT NULL,
      generation bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (user_id, local_day)
    )`.execute(db);

  await sql`
    CREATE TABLE mobile_imports (
      id uuid PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      format text NOT NULL,
      status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
      file_path text NOT NULL,
      total_bytes bigint,
      bytes_read bigint NOT NULL DEFAULT 0,
      records_read bigint NOT NULL DEFAULT 0,
      records_imported bigint NOT NULL DEFAULT 0,
      checkpoint bigint NOT NULL DEFAULT 0,
      error text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
}
