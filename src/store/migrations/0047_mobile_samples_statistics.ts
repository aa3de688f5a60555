import { type Kysely, sql } from 'kysely';

/**
 * A smaller statistics sample for mobile_samples. ANALYZE (autovacuum's, which an import sets off
 * again and again as the table grows) copies 300 × the largest statistics target of the table's
 * columns whole rows into memory, and keeps every sampled value of each column to sort and
 * compare: at the default target (100) that is 30,000 rows of a sample's JSON, an autovacuum
 * worker of about 23 MB during a large import, counted in the import's peak (issue 42: service
 * plus database ≤ 300 MB at 1 GB). Every read of the table is by its primary key or by
 * (user_id, local_day) through an index, which coarse statistics choose as well; the body is
 * never a condition, so it gets none. 3,000 rows then.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE mobile_samples
      ALTER COLUMN user_id SET STATISTICS 10,
      ALTER COLUMN sample_id SET STATISTICS 10,
      ALTER COLUMN kind SET STATISTICS 10,
      ALTER COLUMN local_day SET STATISTICS 10,
      ALTER COLUMN start_at SET STATISTICS 10,
      ALTER COLUMN end_at SET STATISTICS 10,
      ALTER COLUMN body SET STATISTICS 0`.execute(db);
}
