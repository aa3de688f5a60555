// The lab-reports feature's queue: one job per uploaded report, read in an isolated child process
// (features/lab-reports/isolated-parse.ts). A few at a time per process, at most
// LAB_REPORT_DEVELOPER_CONCURRENCY of one developer's per process (jobs are grouped by
// developer), so one tenant's uploads cannot hold every worker. A worker that dies stops its
// heartbeat and the job is retried within seconds; once its retries are spent the queue gives up
// and the session fails with the reason.
import type { AppContext } from '../../features/context.ts';
import { LAB_REPORT_QUEUE, RESEAL_FILES_QUEUE } from '../../features/lab-reports/queue.ts';
import { MAX_ATTEMPTS } from '../../features/lab-reports/service.ts';
import type { RecurringJob } from './recurring.ts';
import { HEARTBEAT_SECONDS } from './connectors.ts';

export function defineLabReportJobs(ctx: AppContext) {
  const { settings } = ctx.labReports;
  // The reader process ends a reading at its wall-clock limit; the expiry is only a backstop beyond it.
  const expireInSeconds = Math.ceil((settings.isolation.wallMs ?? 600_000) / 1000) + 5 * 60;
  ctx.jobs.define({
    name: LAB_REPORT_QUEUE,
    // One more retry than the service's attempt budget: its last attempt records the failure.
    options: {
      retryLimit: MAX_ATTEMPTS,
      retryDelay: 5,
      retryBackoff: true,
      expireInSeconds,
      heartbeatSeconds: HEARTBEAT_SECONDS,
    },
    work: {
      batchSize: 1,
      localConcurrency: settings.concurrency,
      // Per process and strict (a job fetched past it is put back): pg-boss's database-wide
      // `groupConcurrency` is read when a job is fetched, so two workers fetching at the same
      // instant both pass it. Every worker process keeps its other slots for other developers.
      localGroupConcurrency: settings.developerConcurrency,
    },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.labReports.process(job.data.sessionId);
    },
    givenUp: async ({ data, reason }) => ctx.labReports.giveUp(data.sessionId, reason),
  });
  ctx.jobs.define({
    name: RESEAL_FILES_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 30 * 60 },
    handler: async () => {
      await ctx.labReports.resealLegacyFiles();
    },
  });
}

/** Files stored before migration 0023 are re-sealed as bytes at start-up (and daily, a no-op once done). */
export function labReportRecurringJobs(): RecurringJob[] {
  return [{ queue: RESEAL_FILES_QUEUE, schedule: '23 4 * * *', atStartup: true }];
}
