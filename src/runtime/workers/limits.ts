// The public-endpoint limits' housekeeping: counters of ended windows are dropped every hour, so
// a flood from many addresses leaves nothing behind once its windows are over.
import type { AppContext } from '../../features/context.ts';
import { createRequestWindows } from '../../features/limits/windows.ts';
import type { RecurringJob } from './recurring.ts';
import type { NoPayload } from '../../jobs/queues.ts';

export const LIMITS_PRUNE_QUEUE = 'limits.prune';

export function defineLimitJobs(ctx: AppContext) {
  const windows = createRequestWindows({ db: ctx.db, clock: ctx.clock });
  ctx.jobs.define({
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

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [LIMITS_PRUNE_QUEUE]: NoPayload;
  }
}
