// The connector framework's queues: backfill chunks, post-consent setup, polls, inbound
// notifications and the daily maintenance.
import type { AppContext } from '../../features/context.ts';
import { BACKFILL_QUEUE } from '../../features/connectors/backfill.ts';
import type { NotificationSinks } from '../../features/connectors/notifications.ts';
import {
  ACCOUNT_NOTIFICATION_QUEUE,
  NOTIFICATION_QUEUE,
  type NotificationQueue,
  REFETCHES_PER_ACCOUNT,
} from '../../features/connectors/notification-queues.ts';
import { POLL_QUEUE } from '../../features/connectors/polling.ts';
import { SETUP_QUEUE } from '../../features/connectors/service.ts';
import type { RecurringJob } from './recurring.ts';
import type { NoPayload } from '../../jobs/queues.ts';

export const MAINTENANCE_QUEUE = 'connectors.maintenance';

/**
 * Jobs that talk to a provider may legitimately run for minutes, so their expiry is long; a worker
 * killed mid-job is noticed by its missing heartbeat instead, and the job retried within about half
 * a minute (heartbeat lapse plus the queue's supervision pass) rather than when it expires.
 */
export const HEARTBEAT_SECONDS = 10;

/** Where a refetch's records and account changes go: the data and connecting modules. */
export const refetchSinks = (ctx: AppContext): NotificationSinks => ({
  intakeChanged: (user, type, range, pages, options) =>
    ctx.data.intakeChanged(user, type, range, pages, options),
  removeDeleted: (user, type, ids) => ctx.data.removeDeleted(user, type, ids),
  markAccessRevoked: (trx, userId) => ctx.connecting.markAccessRevoked(trx, userId),
  changePermissions: (trx, userId, granted) => ctx.connecting.changePermissions(trx, userId, granted),
});

export function defineConnectorJobs(ctx: AppContext) {
  ctx.jobs.define({
    name: BACKFILL_QUEUE,
    // Outages are retried with backoff; rate limits reschedule the chunk themselves.
    options: {
      retryLimit: 8,
      retryDelay: 30,
      retryBackoff: true,
      retryDelayMax: 1800,
      expireInSeconds: 30 * 60,
      heartbeatSeconds: HEARTBEAT_SECONDS,
    },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.connectors.backfill.runChunk(job.data, ctx.data.sync);
    },
  });
  ctx.jobs.define({
    name: SETUP_QUEUE,
    // The provider's post-consent step (registration): retried through outages.
    options: {
      retryLimit: 8,
      retryDelay: 15,
      retryBackoff: true,
      retryDelayMax: 900,
      expireInSeconds: 5 * 60,
      heartbeatSeconds: HEARTBEAT_SECONDS,
    },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.connectors.setup(job.data);
    },
  });
  ctx.jobs.define({
    name: POLL_QUEUE,
    // A failed poll queues the next one itself; only a crash mid-poll is retried here.
    options: { retryLimit: 3, retryDelay: 30, expireInSeconds: 10 * 60, heartbeatSeconds: HEARTBEAT_SECONDS },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.connectors.polling.run(job.data, refetchSinks(ctx));
    },
  });
  // Data refetches and account changes run the same handler in queues of their own, so a
  // permission change or a deregistration never waits for a backfill's refetches to drain.
  const defineNotificationQueue = (name: NotificationQueue, work: { localGroupConcurrency?: number }) =>
    ctx.jobs.define({
      name,
      options: {
        retryLimit: 6,
        retryDelay: 15,
        retryBackoff: true,
        retryDelayMax: 900,
        expireInSeconds: 15 * 60,
        heartbeatSeconds: HEARTBEAT_SECONDS,
      },
      work: { batchSize: 1, localConcurrency: 2, ...work },
      handler: async (jobs) => {
        for (const job of jobs) await ctx.connectors.notifications.handle(job.data, refetchSinks(ctx));
      },
    });
  // Signed data refetches are grouped by provider account (notification-queues.ts, refetchGroup):
  // each process runs at most REFETCHES_PER_ACCOUNT of one account's at a time and fetches past
  // that account's waiting ones to the next account's, so one account's burst keeps its place and
  // no more. The limit is per process (pg-boss's `localGroupConcurrency`, strict: a job fetched
  // past it is put back), not across processes. Pending (folded) refetches carry no group and are
  // not limited by it; account changes are never grouped.
  defineNotificationQueue(NOTIFICATION_QUEUE, { localGroupConcurrency: REFETCHES_PER_ACCOUNT });
  defineNotificationQueue(ACCOUNT_NOTIFICATION_QUEUE, {});
  ctx.jobs.define({
    name: MAINTENANCE_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 15 * 60 },
    handler: async () => {
      await ctx.connectors.budget.prune();
      await ctx.connectors.notifications.prune();
      await ctx.connectors.pruneDayCompanions();
      await ctx.connectors.subscriptions.renewDue();
    },
  });
}

export function connectorRecurringJobs(): RecurringJob[] {
  return [{ queue: MAINTENANCE_QUEUE, schedule: '41 3 * * *' }];
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [MAINTENANCE_QUEUE]: NoPayload;
  }
}
