/**
 * Which jobs are running, per job (migration 0033): written before a handler runs and settled after
 * it, so a row still `running` when its job is fetched again means the process ended mid-job (it
 * crashed, ran out of memory or was killed). `crashes` counts those ends.
 */
export interface JobStartsTable {
  job_id: string;
  queue: string;
  crashes: number;
  running: boolean;
  started_at: Date;
}

/** Jobs set aside after crashing the process `JOB_CRASH_LIMIT` times: kept for the operator to release or discard. */
export interface JobQuarantineTable {
  job_id: string;
  queue: string;
  /** The job's payload as sent (needed to release it); shown only as a summary without secrets. */
  payload: unknown;
  reason: string;
  crashes: number;
  quarantined_at: Date;
}

// The job queue owns these tables (beside pg-boss's own schema): it adds them to the store's `Database`.
declare module '../store/schema.ts' {
  interface Database {
    job_starts: JobStartsTable;
    job_quarantine: JobQuarantineTable;
  }
}
