import { type Kysely, sql } from 'kysely';

/**
 * Lab reports (features/lab-reports; the vendor's `/lab-reports`). One session per uploaded
 * report: its status and history, the parsed report (results, panels, dates, lab, patient) as
 * JSON once processed, or the structured failure. The uploaded file lives apart, sealed with the
 * service's encryption key, so listings never read it; it goes with its session.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE lab_report_sessions (
      id bigserial PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      upload_id text NOT NULL,
      reference_id text,
      status text NOT NULL CHECK (status IN ('processing', 'completed', 'failed')),
      status_history json NOT NULL,
      media_type text NOT NULL,
      file_name text,
      input_bytes integer NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      report json,
      results_count integer,
      report_date date,
      error json,
      event_id text,
      uploaded_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      deleted_at timestamptz
    )`.execute(db);
  await sql`
    CREATE INDEX lab_report_sessions_by_developer
    ON lab_report_sessions (developer_id, uploaded_at DESC, id DESC) WHERE deleted_at IS NULL`.execute(db);
  await sql`
    CREATE INDEX lab_report_sessions_by_upload ON lab_report_sessions (developer_id, upload_id)`.execute(db);
  await sql`
    CREATE INDEX lab_report_sessions_by_reference
    ON lab_report_sessions (developer_id, reference_id) WHERE reference_id IS NOT NULL`.execute(db);
  await sql`
    CREATE TABLE lab_report_files (
      session_id bigint PRIMARY KEY REFERENCES lab_report_sessions (id) ON DELETE CASCADE,
      sealed text NOT NULL
    )`.execute(db);
}
