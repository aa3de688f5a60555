// The data feature's queues: historical reads sent to webhooks, pruning, SANDBOX arrivals.
// Recurring jobs are scheduled by processes that run workers (see workers/index.ts).
import type { AppContext } from '../../features/context.ts';
import { DELIVER_QUEUE, type DeliverJob } from '../../features/data/deliver.ts';
import { ARRIVALS_QUEUE, arrivalMinutes, runArrivals } from '../../features/data/sandbox-arrivals.ts';

export const PRUNE_QUEUE = 'data.prune';

export function defineDataJobs(ctx: AppContext) {
  ctx.jobs.define<DeliverJob>({
    name: DELIVER_QUEUE,
    // Provider outages are retried with backoff over about an hour; the request's reference stays.
    options: {
      retryLimit: 6,
      retryDelay: 30,
      retryBackoff: true,
      retryDelayMax: 900,
      expireInSeconds: 30 * 60,
    },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: (jobs) => ctx.data.deliverer.handle(jobs),
  });
  ctx.jobs.define<object>({
    name: PRUNE_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 10 * 60 },
    handler: async () => {
      await ctx.data.prune();
    },
  });
  const minutes = arrivalMinutes(ctx.config.env);
  ctx.jobs.define<object>({
    name: ARRIVALS_QUEUE,
    options: { retryLimit: 0, expireInSeconds: 15 * 60 },
    handler: async () => {
      if (minutes === null) return;
      await runArrivals(
        {
          db: ctx.db,
          clock: ctx.clock,
          log: ctx.log,
          providers: ctx.providers,
          sync: ctx.data.sync,
          ingest: (trx, user, type, records) => ctx.data.ingest(trx, user, type, records),
        },
        minutes,
      );
    },
  });
}

export async function scheduleDataJobs(ctx: AppContext) {
  const boss = ctx.jobs.boss();
  try {
    await boss.schedule(PRUNE_QUEUE, '17 * * * *', {}, { tz: 'UTC' });
    const minutes = arrivalMinutes(ctx.config.env);
    if (minutes === null) await boss.unschedule(ARRIVALS_QUEUE);
    else await boss.schedule(ARRIVALS_QUEUE, `FREQ=MINUTELY;INTERVAL=${minutes}`, {}, { tz: 'UTC' });
  } catch (error) {
    ctx.log.warn({ err: error }, 'could not schedule the data module’s recurring jobs');
  }
}
