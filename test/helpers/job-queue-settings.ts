// The job queue's settings in tests.

/**
 * pg-boss's pool in a test service (JOB_QUEUE_POOL_SIZE, 6 in production): several files run at
 * once on one PostgreSQL (scripts/test.ts), and a test's few jobs at a time need no more. A test
 * can set its own in `env`.
 */
export const TEST_JOB_QUEUE_POOL_SIZE = 3;

// For tests that wait for a dead process's job to come back (its heartbeats missed): the job
// queue checks every queue each second instead of each minute, so the wait is the heartbeat
// (10 s) and about a second more, not up to 75 s. As createJobQueue options and as settings.
export const QUICK_SUPERVISION = { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 } as const;

export const QUICK_SUPERVISION_ENV: Readonly<Record<string, string>> = {
  JOB_SUPERVISE_INTERVAL_SECONDS: '1',
  JOB_MONITOR_INTERVAL_SECONDS: '1',
};
