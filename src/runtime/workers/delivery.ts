import type { QueueOptions } from 'pg-boss';
import type { AppContext } from '../../features/context.ts';
import { version } from '../../core/version.ts';
import { createEventFormatter } from '../../features/output-formats/format-event.ts';
import { createDeliveryEngine } from '../../features/delivery/deliver.ts';
import { DELIVERY_QUEUE, SLOW_DELIVERY_QUEUE } from '../../features/delivery/outbox.ts';
import { ownDatabasesOf } from '../../features/delivery/own-database.ts';
import { createSender } from '../../features/delivery/sender.ts';
import { HEALTHCHECK_QUEUE } from '../../features/delivery/healthcheck.ts';
import type { WebhookSettings } from '../../features/delivery/settings.ts';
import { STUCK_SWEEP_QUEUE } from '../../features/delivery/stuck-sweeper.ts';
import type { RecurringJob } from './recurring.ts';

/**
 * Two queues, one handler. First attempts go to the main lane; retries, and events for a
 * destination that is failing or answering slowly, go to the slow lane, so receivers that hold a
 * batch for seconds only ever hold up each other. The HTTP retry schedule is ours (a retry is a
 * new job with `startAfter`); pg-boss's own retries only cover a worker that crashed or lost its
 * database mid-batch, and `heartbeatSeconds` lets another worker take over such a batch quickly.
 */
export function defineWebhookJobs(ctx: AppContext) {
  const { settings } = ctx.webhooks;
  // Webhook bodies in the developer's output format (json, fhir or fit: features/output-formats).
  const formatter = createEventFormatter({ db: ctx.db, clock: ctx.clock });
  const engine = createDeliveryEngine({
    db: ctx.db,
    jobs: ctx.jobs,
    secretBox: ctx.secretBox,
    clock: ctx.clock,
    log: ctx.log,
    settings,
    sender: createSender({ timeoutMs: settings.timeoutMs, connectTimeoutMs: settings.connectTimeoutMs }),
    version,
    hooks: ctx.webhooks.hooks,
    ownDatabases: ownDatabasesOf([ctx.config.databaseUrl, ctx.config.databaseReadUrl]),
    formatEvent: (event) =>
      formatter.format({
        id: event.id,
        developer_id: event.developerId,
        type: event.type,
        created_at: event.createdAt,
        body: event.body,
      }),
  });
  // The clients of destinations of other kinds (database pools, broker connections) close with the queue.
  ctx.jobs.attach({ start: () => undefined, stop: () => engine.close() });
  const options: QueueOptions = {
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 300,
    // A batch is sent in waves, each bounded by the receiver timeout, so a batch may legitimately run
    // for minutes; a dead worker is noticed by its missing heartbeat instead, within seconds.
    expireInSeconds: 900,
    heartbeatSeconds: 10,
    // The delivery log lives in deliveries/delivery_attempts; finished jobs are not needed.
    deleteAfterSeconds: 3600,
  };
  ctx.jobs.define({
    name: DELIVERY_QUEUE,
    options,
    work: {
      batchSize: settings.batchSize,
      localConcurrency: settings.workers,
      pollingIntervalSeconds: 2,
      notifyPollingIntervalSeconds: 2,
      burstWhenBatchFull: true,
    },
    handler: (jobs) => engine.deliver(jobs, 'main'),
  });
  ctx.jobs.define({
    name: SLOW_DELIVERY_QUEUE,
    options,
    work: {
      batchSize: Math.max(1, Math.ceil(settings.batchSize / 2)),
      localConcurrency: Math.max(1, Math.ceil(settings.workers / 2)),
      // Retries are deferred jobs, which no notification announces when they come due: poll often.
      pollingIntervalSeconds: 1,
      notifyPollingIntervalSeconds: 1,
      burstWhenBatchFull: true,
    },
    handler: (jobs) => engine.deliver(jobs, 'slow'),
  });
  ctx.jobs.define({
    name: STUCK_SWEEP_QUEUE,
    options: { retryLimit: 2, retryDelay: 60, expireInSeconds: 15 * 60 },
    handler: async () => {
      const requeued = await ctx.webhooks.sweepStuckEvents();
      if (requeued > 0) ctx.log.warn({ requeued }, 'queued again webhook events whose delivery job was lost');
    },
  });
  ctx.jobs.define({
    name: HEALTHCHECK_QUEUE,
    options: { retryLimit: 2, retryDelay: 60, expireInSeconds: 15 * 60 },
    handler: async () => {
      await ctx.webhooks.sendScheduledHealthchecks();
    },
  });
}

/** The stuck-event sweeper (every five minutes, and at start-up) and the scheduled healthcheck. */
export function webhookRecurringJobs(settings: WebhookSettings): RecurringJob[] {
  const minutes = settings.healthcheckIntervalMinutes;
  return [
    { queue: STUCK_SWEEP_QUEUE, schedule: '*/5 * * * *', atStartup: true },
    { queue: HEALTHCHECK_QUEUE, schedule: minutes === null ? null : `FREQ=MINUTELY;INTERVAL=${minutes}` },
  ];
}
