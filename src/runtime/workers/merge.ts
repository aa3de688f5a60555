// The merged view's queues: a person's changed day sent as a `merged` event (coalesced: the queue
// is `stately`, so while one job of a person, type and day waits, sending another adds nothing),
// and merged reads answered to the webhook.
import type { AppContext } from '../../features/context.ts';
import { MERGE_CHANGED_QUEUE, MERGE_DELIVER_QUEUE } from '../../features/merge/service.ts';

export function defineMergeJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: MERGE_CHANGED_QUEUE,
    policy: 'stately',
    options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 10 * 60 },
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
