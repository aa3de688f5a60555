import { type Kysely, sql } from 'kysely';

/**
 * Poison jobs end (jobs/crash-guard.ts): `job_starts` marks each job running before its handler
 * starts, so a job fetched again while still marked came back from a process that died running it;
 * after `JOB_CRASH_LIMIT` such deaths the job goes to `job_quarantine` for the operator instead of
 * into the same crash again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE job_starts (
      job_id text PRIMARY KEY,
      queue text NOT NULL,
      crashes integer NOT NULL DEFAULT 0,
      running boolean NOT NULL,
      started_at timestamptz NOT NULL
    )
  `.execute(db);
  await sql`
    CREATE TABLE job_quarantine (
      job_id text PRIMARY KEY,
      queue text NOT NULL,
      payload jsonb NOT NULL,
      reason text NOT NULL,
      crashes integer NOT NULL,
      quarantined_at timestamptz NOT NULL
    )
  `.execute(db);
  await sql`CREATE INDEX job_quarantine_by_time ON job_quarantine (quarantined_at DESC)`.execute(db);
}
