// The public-endpoint limits' housekeeping: counters of ended windows are dropped every hour, so
// a flood from many addresses leaves nothing behind once its windows are over.
import type { AppContext } from '../../features/context.ts';
import { createRequestWindows } from '../../features/limits/windows.ts';
import type { RecurringJob } from './recurring.ts';

export const LIMITS_PRUNE_QUEUE = 'limits.prune';

export function defineLimitJobs(ctx: AppContext) {
  const windows = createRequestWindows({ db: ctx.db, clock: ctx.clock });
  ctx.jobs.define<object>({
    name: LIMITS_PRUNE_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 10 * 60 },
    handler: async () => {
      const pruned = await windows.prune();
      if (pruned > 0) ctx.log.debug({ pruned }, 'pruned ended request windows');
    },
  });
}

export function limitRecurringJobs(): RecurringJob[] {
  return [{ queue: LIMITS_PRUNE_QUEUE, schedule: '23 * * * *' }];
}
