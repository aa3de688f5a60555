import { type Kysely, sql } from 'kysely';

/**
 * The vendor's new lab-reports stack (`POST /v2/reports`, docs/wire-contract.md#lab-reports):
 * every session says what kind of report it read (`report_type`: `lab`, or `dexa` for a DXA
 * body-composition or bone-density scan) and under which dated version of the lab-reports API it
 * was uploaded (`api_version`, from the `X-Terra-Version` header or the developer's pin). Sessions
 * stored before this are lab reports read by the first version. A developer's pin is one row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE lab_report_sessions
      ADD COLUMN report_type text NOT NULL DEFAULT 'lab' CHECK (report_type IN ('lab', 'dexa')),
      ADD COLUMN api_version text NOT NULL DEFAULT '2026-03-24'`.execute(db);
  await sql`
    CREATE INDEX lab_report_sessions_by_type
    ON lab_report_sessions (developer_id, report_type, uploaded_at DESC) WHERE deleted_at IS NULL`.execute(
    db,
  );
  await sql`
    CREATE TABLE lab_report_version_pins (
      developer_id text PRIMARY KEY REFERENCES developers (id) ON DELETE CASCADE,
      api_version text NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
}
