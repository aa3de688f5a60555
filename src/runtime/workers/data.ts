// The data feature's queues: historical reads sent to webhooks, pruning, SANDBOX arrivals, and the
// coming months' partitions of data_records.
// Recurring jobs are scheduled by processes that run workers (see workers/recurring.ts).
import type { Config } from '../../core/config.ts';
import type { AppContext } from '../../features/context.ts';
import { DELIVER_QUEUE } from '../../features/data/deliver.ts';
import {
  ensureRecordPartitions,
  RECORD_PARTITIONS_QUEUE,
  RECORD_PARTITIONS_SCHEDULE,
} from '../../features/data/record-partitions.ts';
import { ARRIVALS_QUEUE, runArrivals } from '../../features/data/sandbox-arrivals.ts';
import { dataSettings } from '../../features/data/settings.ts';
import type { RecurringJob } from './recurring.ts';
import { HEARTBEAT_SECONDS } from './connectors.ts';
import type { NoPayload } from '../../jobs/queues.ts';

export const PRUNE_QUEUE = 'data.prune';

export function defineDataJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: DELIVER_QUEUE,
    // Provider outages are retried with backoff over about an hour; the request's reference stays.
    options: {
      retryLimit: 6,
      retryDelay: 30,
      retryBackoff: true,
      retryDelayMax: 900,
      expireInSeconds: 30 * 60,
      heartbeatSeconds: HEARTBEAT_SECONDS,
    },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: (jobs) => ctx.data.deliverer.handle(jobs),
  });
  ctx.jobs.define({
    name: PRUNE_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 10 * 60 },
    handler: async () => {
      await ctx.data.prune();
    },
  });
  ctx.jobs.define({
    name: RECORD_PARTITIONS_QUEUE,
    options: { retryLimit: 3, retryDelay: 600, expireInSeconds: 30 * 60 },
    handler: async () => {
      const created = await ensureRecordPartitions(ctx.db, ctx.clock.now());
      if (created.length > 0) ctx.log.info({ months: created }, 'created month partitions of data_records');
    },
  });
  const minutes = ctx.config.settings.get(dataSettings).arrivalMinutes;
  ctx.jobs.define({
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
          write: (trx, user, batches, options) => ctx.data.write(trx, user, batches, options),
        },
        minutes,
      );
    },
  });
}

export function dataRecurringJobs(config: Config): RecurringJob[] {
  const minutes = config.settings.get(dataSettings).arrivalMinutes;
  return [
    { queue: PRUNE_QUEUE, schedule: '17 * * * *' },
    { queue: RECORD_PARTITIONS_QUEUE, schedule: RECORD_PARTITIONS_SCHEDULE },
    { queue: ARRIVALS_QUEUE, schedule: minutes === null ? null : `FREQ=MINUTELY;INTERVAL=${minutes}` },
  ];
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [PRUNE_QUEUE]: NoPayload;
    [RECORD_PARTITIONS_QUEUE]: NoPayload;
  }
}
