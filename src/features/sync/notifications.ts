// Inbound provider notifications. Receiving is quick and strict: the provider's own check on
// the raw body (a signature, or a subscription id), refusal when Tributary holds no secret to
// check with (never accept what cannot be verified), then a durable job per notification and
// an immediate 200 — providers give a few seconds at most. The job does the slow part: find
// the connections of that provider account, ask the provider where the changed data lies,
// fetch it again with the user's own credentials, store it and send it on as data events.
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import { AppError, badRequest, notFound, unauthorized } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { UserRow } from '../users/service.ts';
import type { DataSourceContext } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import { type NotificationSinks, refetchChanged } from './refetch.ts';
import type { NotificationHooks, ProviderNotification } from '../../provider-kit/api.ts';

export const NOTIFICATION_QUEUE = 'connectors.notification';

type Actionable = Exclude<ProviderNotification, { kind: 'ignored' }>;
export type NotificationJob = { provider: string; notification: Actionable };

/** What handling needs from the data and connections modules. */
export type { NotificationSinks } from './refetch.ts';

export type NotificationDeps = {
  db: Db;
  config: Config;
  clock: Clock;
  jobs: JobQueue;
  log: Logger;
  providers: ProviderCatalog;
  dataContext(user: UserRow): DataSourceContext;
};

/** The provider and its hooks, or a 404 for anything that takes no notifications. */
export function notifiable(
  providers: ProviderCatalog,
  id: string,
): { provider: ResolvedProvider; hooks: NotificationHooks } {
  const provider = providers.get(id);
  const hooks = provider?.connector?.notifications;
  if (!provider || !hooks) throw notFound(`no provider ${id} that sends notifications`);
  return { provider, hooks };
}

const notConfigured = (id: string) =>
  new AppError('upstream_unavailable', `notifications from ${id} are not configured on this deployment`, {
    headers: { 'Retry-After': '3600' },
  });

export function createNotifications(deps: NotificationDeps) {
  const { db, clock, jobs, log } = deps;

  async function subscriptionIds(providerId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('connector_subscriptions')
      .select('external_id')
      .where('provider', '=', providerId)
      .execute();
    return rows.map((row) => row.external_id);
  }

  /**
   * The key notifications are signed with: the client secret, unless the provider issues a key
   * of its own when the subscription is created (shown once), which the operator sets as
   * `<ID>_WEBHOOK_SECRET`.
   */
  function signingKey(provider: ResolvedProvider): string | null {
    const own = deps.config.env[`${provider.id}_WEBHOOK_SECRET`]?.trim();
    return own ? own : (provider.credentials?.clientSecret ?? null);
  }

  /** A POST from the provider: verified, parsed and queued; returns how many were queued. */
  async function receive(
    id: string,
    input: { headers: IncomingHttpHeaders; rawBody: Buffer },
  ): Promise<number> {
    const { provider, hooks } = notifiable(deps.providers, id);
    if (!provider.enabled) throw notConfigured(provider.id);
    const verdict = hooks.verify({
      headers: input.headers,
      rawBody: input.rawBody,
      secret: signingKey(provider),
      subscriptionIds: await subscriptionIds(provider.id),
      now: clock.now(),
    });
    if (verdict === 'unconfigured') throw notConfigured(provider.id);
    if (verdict !== 'valid') throw unauthorized(`the ${provider.id} notification failed verification`);
    let parsed: ProviderNotification[];
    try {
      parsed = hooks.parse(input.rawBody);
    } catch {
      throw badRequest(`the ${provider.id} notification is not the JSON the provider documents`);
    }
    const actionable = parsed.filter((item): item is Actionable => item.kind !== 'ignored');
    for (const item of parsed)
      if (item.kind === 'ignored')
        log.debug({ provider: provider.id, reason: item.reason }, 'notification ignored');
    await jobs.sendMany<NotificationJob>(
      NOTIFICATION_QUEUE,
      actionable.map((notification) => ({ data: { provider: provider.id, notification } })),
    );
    return actionable.length;
  }

  /** The provider's GET handshake; 403 when the token is not the one Tributary gave. */
  function handshake(id: string, query: URLSearchParams, verifyToken: string): unknown {
    const { provider, hooks } = notifiable(deps.providers, id);
    if (!provider.enabled) throw notConfigured(provider.id);
    const answer = hooks.handshake(query, verifyToken);
    if (!answer) throw new AppError('forbidden', `not a valid ${provider.id} subscription handshake`);
    return answer.body;
  }

  async function usersOf(providerId: string, providerUserId: string): Promise<UserRow[]> {
    return db
      .selectFrom('users')
      .selectAll()
      .where('provider', '=', providerId)
      .where('provider_user_id', '=', providerUserId)
      .execute();
  }

  /** Fetches the changed days again for one connection and sends them on; returns records sent. */
  async function refetch(
    provider: ResolvedProvider,
    hooks: NotificationHooks,
    user: UserRow,
    notification: Extract<Actionable, { kind: 'data' }>,
    sinks: NotificationSinks,
  ): Promise<number> {
    const context = deps.dataContext(user);
    const source = provider.connector?.data;
    if (!context.http || !source) return 0;
    const changed = await hooks.locate(notification, context.http);
    return changed ? refetchChanged(db, provider, user, context, changed, sinks) : 0;
  }

  async function handle(job: NotificationJob, sinks: NotificationSinks): Promise<void> {
    const provider = deps.providers.get(job.provider);
    const hooks = provider?.connector?.notifications;
    if (!provider || !hooks) return;
    const { notification } = job;
    const users = await usersOf(provider.id, notification.providerUserId);
    if (notification.kind === 'revoked') {
      for (const user of users)
        await db.transaction().execute((trx) => sinks.markAccessRevoked(trx, user.id));
      return;
    }
    // Inactive users receive no data updates; broken and revoked ones have nothing to fetch with.
    for (const user of users.filter((candidate) => candidate.status === 'active' && candidate.active)) {
      try {
        const sent = await refetch(provider, hooks, user, notification, sinks);
        log.debug({ provider: provider.id, userId: user.id, sent }, 'notification handled');
      } catch (error) {
        // A connection that can no longer authorize is already marked; the others retry the job.
        if (error instanceof ProviderDataError && error.kind === 'unauthorized') {
          log.warn({ provider: provider.id, userId: user.id, err: error }, 'notification fetch refused');
          continue;
        }
        throw error;
      }
    }
  }

  return { receive, handshake, handle };
}

export type Notifications = ReturnType<typeof createNotifications>;
