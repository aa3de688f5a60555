import { type Kysely, sql } from 'kysely';

/**
 * The format a developer's events are delivered in (the vendor's per-environment processing type,
 * docs/wire-contract.md#output-formats): `json` (the wire payload, what every developer had
 * before), `fhir` (a FHIR R4 Bundle) or `fit` (the provider's original FIT file where one is
 * kept). One row per developer that chose something other than the default; no row is `json`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE developer_output_formats (
      developer_id text PRIMARY KEY REFERENCES developers (id) ON DELETE CASCADE,
      format text NOT NULL CHECK (format IN ('json', 'fhir', 'fit')),
      updated_at timestamptz NOT NULL
    )`.execute(db);
}
