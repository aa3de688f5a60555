// Spooled export files a crash left behind (an upload interrupted by kill -9 never got its import
// row) are swept every hour and once at start-up: the spool never grows with dead files.
import type { AppContext } from '../../features/context.ts';
import { SWEEP_SPOOL_QUEUE } from '../../features/mobile/ports.ts';
import type { RecurringJob } from './recurring.ts';

export function defineMobileSpoolJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: SWEEP_SPOOL_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 10 * 60 },
    handler: async () => {
      await ctx.mobile.sweepSpool();
    },
  });
}

export function mobileSpoolRecurringJobs(): RecurringJob[] {
  return [{ queue: SWEEP_SPOOL_QUEUE, schedule: '41 * * * *', atStartup: true }];
}
