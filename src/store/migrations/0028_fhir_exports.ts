import { type Kysely, sql } from 'kysely';

/**
 * FHIR bulk exports (features/fhir-export, docs/fhir.md#bulk-export). An export is cut into units,
 * one per user; a unit keeps its place (data type, last record given, devices already written) and
 * moves it in the transaction that stores the NDJSON lines it wrote, so a worker that dies
 * resumes where the last commit left it and writes no line twice. A file of the manifest is one
 * user's lines of one resource type: its parts in `seq` order. Everything goes with the export
 * (cancelled, or past its retention).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE fhir_exports (
      id text PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      user_id text,
      resource_types text[] NOT NULL,
      since timestamptz,
      output_format text NOT NULL,
      request_url text NOT NULL,
      status text NOT NULL,
      units_total integer NOT NULL,
      units_done integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      completed_at timestamptz,
      expires_at timestamptz
    )
  `.execute(db);
  await sql`CREATE INDEX fhir_exports_developer ON fhir_exports (developer_id, created_at)`.execute(db);
  await sql`CREATE INDEX fhir_exports_expiry ON fhir_exports (expires_at) WHERE expires_at IS NOT NULL`.execute(
    db,
  );
  await sql`
    CREATE TABLE fhir_export_units (
      export_id text NOT NULL REFERENCES fhir_exports (id) ON DELETE CASCADE,
      user_id text NOT NULL,
      done boolean NOT NULL DEFAULT false,
      type_index integer NOT NULL DEFAULT 0,
      after_at timestamptz,
      after_key text,
      devices text[] NOT NULL DEFAULT '{}',
      patient_written boolean NOT NULL DEFAULT false,
      next_seq integer NOT NULL DEFAULT 0,
      PRIMARY KEY (export_id, user_id)
    )
  `.execute(db);
  await sql`
    CREATE TABLE fhir_export_parts (
      export_id text NOT NULL REFERENCES fhir_exports (id) ON DELETE CASCADE,
      user_id text NOT NULL,
      resource_type text NOT NULL,
      seq integer NOT NULL,
      lines integer NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (export_id, user_id, resource_type, seq)
    )
  `.execute(db);
}
