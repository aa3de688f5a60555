// The connector framework's queues, schedule and routes. Provider notifications arrive at
// /providers/{provider}/webhook; the POST route keeps the raw body (a content-type parser of its
// own, in its own scope) because signatures are over the exact bytes the provider sent.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../context.ts';
import type { App } from '../../http/app-type.ts';
import type { Module } from '../modules.ts';
import { BACKFILL_QUEUE, type BackfillJob } from '../../features/sync/backfill.ts';
import { NOTIFICATION_QUEUE, type NotificationJob } from '../../features/sync/notifications.ts';
import { POLL_QUEUE, type PollJob } from '../../features/sync/polling.ts';
import { SETUP_QUEUE, type SetupJob } from '../../features/sync/service.ts';
import { verifyTokenFor } from '../../provider-kit/signatures.ts';
import { callbackPath } from '../../features/sync/subscriptions.ts';

export const MAINTENANCE_QUEUE = 'connectors.maintenance';
const NOTIFICATION_BODY_LIMIT = 256 * 1024;

function defineConnectorJobs(ctx: AppContext) {
  ctx.jobs.define<BackfillJob>({
    name: BACKFILL_QUEUE,
    // Outages are retried with backoff; rate limits reschedule the chunk themselves.
    options: {
      retryLimit: 8,
      retryDelay: 30,
      retryBackoff: true,
      retryDelayMax: 1800,
      expireInSeconds: 30 * 60,
    },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.connectors.backfill.runChunk(job.data, ctx.data.sync);
    },
  });
  ctx.jobs.define<SetupJob>({
    name: SETUP_QUEUE,
    // The provider's post-consent step (registration): retried through outages.
    options: {
      retryLimit: 8,
      retryDelay: 15,
      retryBackoff: true,
      retryDelayMax: 900,
      expireInSeconds: 5 * 60,
    },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: async (jobs) => {
      for (const job of jobs) await ctx.connectors.setup(job.data);
    },
  });
  ctx.jobs.define<PollJob>({
    name: POLL_QUEUE,
    // A failed poll queues the next one itself; only a crash mid-poll is retried here.
    options: { retryLimit: 3, retryDelay: 30, expireInSeconds: 10 * 60 },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: async (jobs) => {
      for (const job of jobs)
        await ctx.connectors.polling.run(job.data, {
          ingest: (trx, user, type, records) => ctx.data.ingest(trx, user, type, records),
          markAccessRevoked: (trx, userId) => ctx.connections.markAccessRevoked(trx, userId),
        });
    },
  });
  ctx.jobs.define<NotificationJob>({
    name: NOTIFICATION_QUEUE,
    options: {
      retryLimit: 6,
      retryDelay: 15,
      retryBackoff: true,
      retryDelayMax: 900,
      expireInSeconds: 15 * 60,
    },
    work: { batchSize: 1, localConcurrency: 2 },
    handler: async (jobs) => {
      for (const job of jobs) {
        await ctx.connectors.notifications.handle(job.data, {
          ingest: (trx, user, type, records) => ctx.data.ingest(trx, user, type, records),
          markAccessRevoked: (trx, userId) => ctx.connections.markAccessRevoked(trx, userId),
        });
      }
    },
  });
  ctx.jobs.define<object>({
    name: MAINTENANCE_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 15 * 60 },
    handler: async () => {
      await ctx.connectors.budget.prune();
      await ctx.connectors.subscriptions.renewDue();
    },
  });
}

const Params = Type.Object({ provider: Type.String() });

async function registerNotificationRoutes(app: App, ctx: AppContext) {
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // Only here: the body stays the Buffer the provider sent, whatever its content type.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: NOTIFICATION_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    const path = callbackPath(':provider');
    scope.get(
      path,
      {
        config: { auth: 'none' },
        schema: {
          tags: ['provider notifications'],
          summary: 'Subscription handshake from a provider (a challenge to echo)',
          params: Params,
        },
      },
      async (request) => {
        const query = new URLSearchParams(request.url.split('?')[1] ?? '');
        const provider = request.params.provider.toUpperCase();
        return ctx.connectors.notifications.handshake(provider, query, verifyTokenFor(ctx.config, provider));
      },
    );
    scope.post(
      path,
      {
        config: { auth: 'none' },
        schema: {
          tags: ['provider notifications'],
          summary: 'A provider notification: verified on the raw body, acknowledged at once, fetched later',
          params: Params,
        },
      },
      async (request) => {
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const queued = await ctx.connectors.notifications.receive(request.params.provider, {
          headers: request.headers,
          rawBody,
        });
        return { status: 'success', queued };
      },
    );
  });
}

async function scheduleMaintenance(ctx: AppContext) {
  try {
    await ctx.jobs.boss().schedule(MAINTENANCE_QUEUE, '41 3 * * *', {}, { tz: 'UTC' });
  } catch (error) {
    ctx.log.warn({ err: error }, 'could not schedule the connector maintenance job');
  }
}

export const connectorsModule: Module = {
  name: 'connectors',
  jobs: defineConnectorJobs,
  async routes(app, ctx) {
    await registerNotificationRoutes(app, ctx);
    await scheduleMaintenance(ctx);
  },
};
