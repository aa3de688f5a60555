import { type Kysely, sql } from 'kysely';

/**
 * mobile_samples loses its foreign key to connections (issue 44): checking it was ~40 % of an
 * import batch's execution (EXPLAIN ANALYZE on 8 real 5,000-row batches: 2,319 ms with the key,
 * 1,346 ms without), one lookup and lock of the same connection row per inserted sample. What
 * the key guaranteed is kept by two cheaper means:
 *
 * - a connection's deletion deletes its samples: a trigger on connections (after delete, per row,
 *   so a developer's deletion cascading to its connections fires it too), generic over the table
 *   and column it erases, which are its arguments. The erasure receipt finds such triggers in the
 *   catalog (connections/repo.ts `countCascadingRows`) as it finds ON DELETE CASCADE keys;
 * - no sample is written for a connection being deleted or gone: the upsert takes a key-share
 *   lock on the connection's row once per statement (mobile/samples-repo.ts `upsertSamples`), what the
 *   key's check took once per row, and inserts nothing when the row is not there. A deletion
 *   waits for the batch's commit, then its trigger deletes the batch's rows with the others.
 *
 * During a rolling upgrade the previous release's upserts take no such lock: a batch of theirs
 * racing a user's deletion could leave that user's samples behind (the receipts they write do not
 * count samples either; the trigger still erases them).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION erase_rows_of_connection() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- The erased table lives in the schema of the connections table the trigger is on.
      EXECUTE format('DELETE FROM %I.%I WHERE %I = $1', TG_TABLE_SCHEMA, TG_ARGV[0], TG_ARGV[1])
        USING OLD.id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER erase_mobile_samples AFTER DELETE ON connections
    FOR EACH ROW EXECUTE FUNCTION erase_rows_of_connection('mobile_samples', 'user_id')`.execute(db);
  // The key's name is the one PostgreSQL gave it in 0016 (the table was users then), found
  // rather than assumed.
  await sql`
    DO $$
    DECLARE name text;
    BEGIN
      SELECT conname INTO STRICT name FROM pg_constraint
      WHERE conrelid = 'mobile_samples'::regclass AND contype = 'f'
        AND confrelid = 'connections'::regclass;
      EXECUTE format('ALTER TABLE mobile_samples DROP CONSTRAINT %I', name);
    END $$`.execute(db);
}
