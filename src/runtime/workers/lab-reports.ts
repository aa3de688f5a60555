// The lab-reports feature's queue: one job per uploaded report. One at a time per process (OCR
// takes the CPU); a failing job is retried with backoff and never holds up the others.
import type { AppContext } from '../../features/context.ts';
import { LAB_REPORT_QUEUE } from '../../features/lab-reports/queue.ts';
import { MAX_ATTEMPTS } from '../../features/lab-reports/service.ts';

export function defineLabReportJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: LAB_REPORT_QUEUE,
    // One more retry than the service's attempt budget: its last attempt records the failure.
    options: { retryLimit: MAX_ATTEMPTS, retryDelay: 5, retryBackoff: true, expireInSeconds: 10 * 60 },
    work: { batchSize: 1, localConcurrency: 1 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.labReports.process(job.data.sessionId);
    },
  });
}
