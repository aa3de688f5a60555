import { type Kysely, sql } from 'kysely';

/**
 * The providers' original files of activities (a FIT recording), kept as the provider gave them
 * for developers whose output format is `fit` (docs/output-formats.md#fit-files). One row per
 * connection and activity (`summary_id`, the activity's identity); the bytes are checked as FIT
 * before they are stored and bounded by ORIGINAL_FILE_MAX_BYTES (the CHECK is the store's own
 * guard, 16 MiB). They go with their connection (deauthentication, deletion, erasure, and so
 * with its developer), like the records. `developer_id` is the connection's, so a read can
 * require the owner without a join.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE original_files (
      connection_id uuid NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      developer_id text NOT NULL,
      summary_id text NOT NULL,
      format text NOT NULL CHECK (format IN ('fit')),
      bytes bytea NOT NULL CHECK (octet_length(bytes) <= 16777216),
      fetched_at timestamptz NOT NULL,
      PRIMARY KEY (connection_id, summary_id)
    )`.execute(db);
}
