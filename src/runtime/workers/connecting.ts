import type { AppContext } from '../../features/context.ts';
import { EXPIRE_AUTH_SESSION_QUEUE } from '../../features/connecting/ports.ts';

export function defineConnectingJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: EXPIRE_AUTH_SESSION_QUEUE,
    options: { retryLimit: 5, retryDelay: 30, retryBackoff: true },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.connecting.expireAuthSession(job.data.authSessionId);
    },
  });
}
