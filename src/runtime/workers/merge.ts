// The merged view's queues: a person's changed day sent as a `merged` event (coalesced: the queue
// is `stately`, so while one job of a person, type and day waits, sending another adds nothing),
// and merged reads answered to the webhook.
import type { AppContext } from '../../features/context.ts';
import { MERGE_CHANGED_QUEUE, MERGE_DELIVER_QUEUE } from '../../features/merge/service.ts';

export function defineMergeJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: MERGE_CHANGED_QUEUE,
    policy: 'stately',
    // A failed merge holds the person's event back until its retry, so the first retries come
    // soon (5-10 s, then doubling); more of them cover a database outage about as long as five
    // from 30 s did (to ~20 min).
    options: {
      retryLimit: 8,
      retryDelay: 5,
      retryBackoff: true,
      retryDelayMax: 10 * 60,
      expireInSeconds: 10 * 60,
    },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.merge.personChanged(job.data);
    },
  });
  ctx.jobs.define({
    name: MERGE_DELIVER_QUEUE,
    options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 30 * 60 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.merge.deliverRequest(job.data);
    },
  });
}
