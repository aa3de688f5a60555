// The job queue's settings (declared here, parsed once at boot by core/settings.ts).
import { defineSettings, numberSetting } from '../core/settings.ts';

export const jobSettings = defineSettings({
  id: 'jobs',
  owner: 'jobs',
  intro: ['Job queue.'],
  settings: {
    JOB_CRASH_LIMIT: numberSetting({
      description:
        'Times a job may end its process (a crash, out of memory, a kill) before it is quarantined for the operator (dashboard: Quarantined jobs) instead of run again.',
      default: 2,
      integer: true,
      minimum: 1,
      maximum: 20,
      problem: 'must be a whole number from 1 to 20',
    }),
    JOB_QUEUE_POOL_SIZE: numberSetting({
      description:
        "PostgreSQL connections the job queue (pg-boss) opens per process, besides the store's pool and one for LISTEN: its workers' fetches, sends outside a transaction, supervision.",
      default: 6,
      integer: true,
      minimum: 2,
      maximum: 50,
      problem: 'must be a whole number from 2 to 50',
    }),
    JOB_SUPERVISE_INTERVAL_SECONDS: numberSetting({
      description:
        "Seconds between the job queue's supervision passes (one process's at a time): each checks the queues whose JOB_MONITOR_INTERVAL_SECONDS has passed.",
      default: 15,
      integer: true,
      minimum: 1,
      maximum: 300,
      problem: 'must be a whole number of seconds from 1 to 300',
    }),
    JOB_MONITOR_INTERVAL_SECONDS: numberSetting({
      description:
        'Seconds between two checks of one queue for jobs past their expiry or whose process died (heartbeats missed), which go back to the queue, and of its counts: about the longest such a job waits past its heartbeat, plus up to one supervision interval.',
      default: 60,
      integer: true,
      minimum: 1,
      maximum: 600,
      problem: 'must be a whole number of seconds from 1 to 600',
    }),
  },
  build: (v) => ({
    /** Process deaths while running one job before it is quarantined. */
    crashLimit: v.JOB_CRASH_LIMIT,
    /** pg-boss's pool per process. */
    poolSize: v.JOB_QUEUE_POOL_SIZE,
    /** pg-boss's supervision interval. */
    superviseIntervalSeconds: v.JOB_SUPERVISE_INTERVAL_SECONDS,
    /** pg-boss's per-queue monitor interval (expiry, missed heartbeats, counts). */
    monitorIntervalSeconds: v.JOB_MONITOR_INTERVAL_SECONDS,
  }),
});
