import { type Kysely, sql } from 'kysely';

/**
 * Lab-report files are stored as sealed bytes (`bytea`) instead of text: base64 of the file, sealed,
 * then base64url again in the secret box's text form, took about 1.8× the file's size.
 *
 * New rows hold the secret box's bytes form (version byte 1, iv, tag, ciphertext of the file
 * itself). Existing rows are converted here, in SQL, on PGlite and PostgreSQL alike: the
 * text form `v1.<iv>.<tag>.<ciphertext>` has each part's base64url decoded into the same bytes
 * layout. Their ciphertext is still of the file's base64 text (re-encrypting needs the key, which a
 * migration does not have), so they are marked `legacy_base64` and read back through one more
 * base64 decode: byte for byte the file that was uploaded. The `lab-reports.reseal-files` job
 * (at start-up) re-seals them as bytes with the key; the partial index finds what is left.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const bytesOf = (part: number) => sql`decode(
      translate(split_part(sealed, '.', ${sql.lit(part)}), '-_', '+/')
        || repeat('=', (4 - length(split_part(sealed, '.', ${sql.lit(part)})) % 4) % 4),
      'base64')`;
  // Existing rows are the legacy ones; rows written from now on say so explicitly.
  await sql`ALTER TABLE lab_report_files ADD COLUMN legacy_base64 boolean NOT NULL DEFAULT true`.execute(db);
  await sql`ALTER TABLE lab_report_files ALTER COLUMN legacy_base64 SET DEFAULT false`.execute(db);
  await sql`
    ALTER TABLE lab_report_files ALTER COLUMN sealed TYPE bytea
      USING decode('01', 'hex') || ${bytesOf(2)} || ${bytesOf(3)} || ${bytesOf(4)}`.execute(db);
  await sql`CREATE INDEX lab_report_files_legacy ON lab_report_files (session_id) WHERE legacy_base64`.execute(
    db,
  );
}
