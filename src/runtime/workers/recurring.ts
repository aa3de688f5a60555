// Recurring jobs as data: each feature's workers file lists what it runs on a schedule, and
// `registerSchedules` hands the list to pg-boss. Every worker process registers the same list at
// start; pg-boss keeps one schedule row per queue (same name, same key: registering again only
// updates it) and files each due occurrence once, so N workers run each occurrence once, not N
// times (test/integration/recurring-jobs.test.ts drives several instances on one clock to prove it).
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';

export type RecurringJob = {
  queue: string;
  /** A cron expression (UTC) or an RFC 5545 rule; null when the job is switched off by settings. */
  schedule: string | null;
  /**
   * Also run once when workers start (say, to settle what a crash left behind without waiting for
   * the schedule). Workers starting together send one such job a minute between them.
   */
  atStartup?: boolean;
};

/** Seconds within which start-up runs sent by several starting workers collapse into one job. */
const STARTUP_SINGLETON_SECONDS = 60;

/** What `boss.schedule(queue, expression, {}, SCHEDULE_OPTIONS)` stores besides the expression. */
const SCHEDULE_OPTIONS = { tz: 'UTC' };

type StoredSchedule = {
  name: string;
  key: string;
  cron: string;
  timezone: string;
  data: unknown;
  options: unknown;
};

/** Whether the stored row already says what registering `schedule` again would write. */
export function scheduleUnchanged(stored: StoredSchedule | undefined, schedule: string): boolean {
  return (
    stored !== undefined &&
    stored.cron === schedule &&
    stored.timezone === SCHEDULE_OPTIONS.tz &&
    JSON.stringify(stored.data ?? {}) === '{}' &&
    JSON.stringify(stored.options) === JSON.stringify(SCHEDULE_OPTIONS)
  );
}

/**
 * Registers each job; one that fails is logged and does not keep the others from running. The
 * schedules are read once first, and one already stored as it would be written is left alone (a
 * later start writes nothing and parses no expression).
 */
export async function registerSchedules(
  boss: PgBoss,
  jobs: readonly RecurringJob[],
  log: Logger,
): Promise<void> {
  let stored: Map<string, StoredSchedule> | undefined;
  try {
    const rows = (await boss.getSchedules()) as StoredSchedule[];
    stored = new Map(rows.filter((row) => (row.key ?? '') === '').map((row) => [row.name, row]));
  } catch (error) {
    // Not fatal: every job is then registered as if none were stored.
    log.warn({ err: error }, 'could not read the stored schedules');
  }
  for (const job of jobs) {
    try {
      if (job.schedule === null) {
        if (!stored || stored.has(job.queue)) await boss.unschedule(job.queue);
      } else if (!scheduleUnchanged(stored?.get(job.queue), job.schedule))
        await boss.schedule(job.queue, job.schedule, {}, SCHEDULE_OPTIONS);
      if (job.atStartup && job.schedule !== null) {
        await boss.send(
          job.queue,
          {},
          { singletonKey: 'start-up', singletonSeconds: STARTUP_SINGLETON_SECONDS },
        );
      }
    } catch (error) {
      log.warn({ err: error, queue: job.queue }, 'could not register a recurring job');
    }
  }
}
