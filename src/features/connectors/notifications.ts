// Inbound provider notifications. Receiving is quick and strict: the provider's own check on
// the raw body (a signature, or a subscription id), refusal when Tributary holds no secret to
// check with (never accept what cannot be verified), then a durable job and an immediate 200 —
// providers give a few seconds at most. What a notification can cost is bounded (intake.ts):
// a signed one is taken in once; an unsigned one (anyone can post it) is rate limited per sender,
// taken only for accounts connected here, and folded into one pending refetch per account and
// data kind. The job does the slow part: find the connections of that provider account, ask the
// provider where the changed data lies, fetch it again with the user's own credentials, store it
// and send it on as data events.
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { ConnectionRow } from '../connections/service.ts';
import { findActiveAccounts, findUsersByAccount, firstConnectedAt } from '../connections/accounts-repo.ts';
import type { DataSourceContext } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import { type NotificationSinks, refetchChanged } from './refetch.ts';
import type { DataNotification, NotificationHooks, ProviderNotification } from '../../provider-kit/api.ts';
import { providerSyncSettings, syncSettings } from './settings.ts';
import { type RequestWindows, tooManyRequests } from '../limits/windows.ts';
import { clampSpan, hasWork, keepDeclaredCallbacks } from './notification-limits.ts';
import {
  ACCOUNT_NOTIFICATION_QUEUE,
  type Actionable,
  NOTIFICATION_QUEUE,
  type NotificationJob,
  refetchGroup,
} from './notification-queues.ts';
import {
  coalescePending,
  fingerprintOf,
  type PendingKey,
  pruneReceipts,
  readPending,
  recordReceipt,
  settlePending,
  touchPending,
} from './intake.ts';

/** What the POST is answered with: how many refetches a signed one queued (none for a replay). */
export type NotificationReceipt = { queued?: number; duplicate?: boolean };

/** What handling needs from the data and connecting modules. */
export type { NotificationSinks } from './refetch.ts';

export type NotificationDeps = {
  db: Db;
  config: Config;
  clock: Clock;
  jobs: JobQueue;
  log: Logger;
  providers: ProviderCatalog;
  windows: RequestWindows;
  dataContext(user: ConnectionRow): DataSourceContext;
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

/**
 * A provider this deployment cannot take notifications from (no credentials, no secret, no
 * subscription) is, to the sender, a URL that does not exist: a 404, nothing logged.
 */
const notConfigured = (id: string) => notFound(`no provider ${id} that sends notifications here`);

export function createNotifications(deps: NotificationDeps) {
  const { db, clock, jobs, log } = deps;
  // Unsigned notifications one sender address may post per window, per provider.
  const { sourceRule } = deps.config.settings.get(syncSettings);

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
    const own = deps.config.settings.forProvider(providerSyncSettings, provider.id).webhookSecret;
    return own ? own : (provider.credentials?.clientSecret ?? null);
  }

  /** When each of these provider accounts was first connected here (for clamping spans). */
  async function connectedSince(providerId: string, providerUserIds: string[]): Promise<Map<string, Date>> {
    return firstConnectedAt(db, providerId, providerUserIds);
  }

  /**
   * Each notification bounded by what its provider documents: callbacks only to the provider's
   * own declared URLs, spans clamped to the declared maximum and the connection's lifetime. One
   * that leaves nothing to fetch is dropped here, before it costs a job or a request.
   */
  async function bounded(provider: ResolvedProvider, items: Actionable[]): Promise<Actionable[]> {
    const api = provider.connector?.api;
    const spanned = items.flatMap((item) => (item.kind === 'data' && item.span ? [item.providerUserId] : []));
    const since = await connectedSince(provider.id, spanned);
    const now = clock.now();
    const kept: Actionable[] = [];
    for (const item of items) {
      if (item.kind !== 'data') {
        kept.push(item);
        continue;
      }
      const declared = keepDeclaredCallbacks(item, api, (url) => provider.resolveUrl(url));
      const clamped = clampSpan(declared, api?.notificationSpanSeconds, {
        connectedSince: since.get(item.providerUserId) ?? null,
        now,
      });
      if (!clamped || !hasWork(clamped)) {
        log.info({ provider: provider.id, dataKind: item.dataKind }, 'notification names nothing to fetch');
        continue;
      }
      if (clamped.span !== item.span)
        log.info(
          { provider: provider.id, named: item.span, kept: clamped.span },
          'notification span clamped',
        );
      kept.push(clamped);
    }
    return kept;
  }

  /** Whether a notification (or a pending refetch's key) is about the account itself. */
  function aboutAccount(providerId: string, notification: { kind?: string; dataKind?: string }): boolean {
    if (notification.kind === 'revoked') return true;
    const accountKinds = deps.providers.get(providerId)?.connector?.notifications?.accountKinds ?? [];
    return notification.dataKind !== undefined && accountKinds.includes(notification.dataKind);
  }

  const callbackFingerprint = (url: string) => fingerprintOf(Buffer.from(`callback\u0000${url}`));

  /** The notification without the callbacks fetched already; null when none is left. */
  async function unfetched(
    providerId: string,
    notification: DataNotification,
  ): Promise<DataNotification | null> {
    const callbacks = notification.callbacks;
    if (!callbacks || callbacks.length === 0) return notification;
    const seen = await db
      .selectFrom('connector_notification_receipts')
      .select('fingerprint')
      .where('provider', '=', providerId)
      .where('fingerprint', 'in', callbacks.map(callbackFingerprint))
      .execute();
    const taken = new Set(seen.map((row) => row.fingerprint));
    const fresh = callbacks.filter((url) => !taken.has(callbackFingerprint(url)));
    if (fresh.length === 0 && notification.inline === undefined) return null;
    return { ...notification, callbacks: fresh };
  }

  /** Remembers fetched callbacks (for the receipt retention window): a re-sent one is not fetched again. */
  async function markFetched(providerId: string, callbacks: readonly string[] | undefined): Promise<void> {
    if (!callbacks?.length) return;
    await db.transaction().execute(async (trx) => {
      for (const url of callbacks)
        await recordReceipt(trx, providerId, callbackFingerprint(url), clock.now());
    });
  }

  /** Signed: queued once per distinct body within the receipt retention window. */
  async function takeSigned(
    provider: ResolvedProvider,
    rawBody: Buffer,
    actionable: Actionable[],
  ): Promise<NotificationReceipt> {
    return db.transaction().execute(async (trx) => {
      if (!(await recordReceipt(trx, provider.id, fingerprintOf(rawBody), clock.now()))) {
        log.debug({ provider: provider.id }, 'notification already taken in');
        return { queued: 0, duplicate: true };
      }
      const aboutAccounts = actionable.filter((notification) => aboutAccount(provider.id, notification));
      const refetches = actionable.filter((notification) => !aboutAccount(provider.id, notification));
      await jobs.sendMany(
        ACCOUNT_NOTIFICATION_QUEUE,
        aboutAccounts.map((notification) => ({ data: { provider: provider.id, notification } })),
        trx,
      );
      // Grouped by provider account (notification-queues.ts), so a burst of one waits its turn.
      await jobs.sendMany(
        NOTIFICATION_QUEUE,
        refetches.map((notification) => ({
          data: { provider: provider.id, notification },
          options: { group: refetchGroup(provider.id, notification.providerUserId) },
        })),
        trx,
      );
      return { queued: actionable.length };
    });
  }

  /** Unsigned: connected accounts only, each folded into its one pending refetch per kind. */
  async function takeUnsigned(
    provider: ResolvedProvider,
    coalesce: NonNullable<NotificationHooks['unsigned']>['coalesce'],
    actionable: Actionable[],
  ): Promise<NotificationReceipt> {
    // Anyone could have sent it: it may prompt a fetch, never end a connection.
    const data = actionable.filter((item): item is DataNotification => item.kind === 'data');
    const known = await findActiveAccounts(
      db,
      provider.id,
      data.map((item) => item.providerUserId),
    );
    for (const notification of data.filter((item) => known.has(item.providerUserId))) {
      await db.transaction().execute(async (trx) => {
        const key = await coalescePending(trx, provider.id, notification, coalesce, clock.now());
        if (key) await sendPending(trx, key);
      });
    }
    // The answer is the same whoever the notification named, so it tells a sender nothing.
    return {};
  }

  const sendPending = (trx: Db, key: PendingKey) => {
    const pending = { providerUserId: key.providerUserId, dataKind: key.dataKind };
    // An account change gathers nothing (it is one question to the provider): it runs at once.
    if (aboutAccount(key.provider, key))
      return jobs.send(ACCOUNT_NOTIFICATION_QUEUE, { provider: key.provider, pending }, { trx });
    const gather = deps.providers.get(key.provider)?.connector?.api?.notificationGatherSeconds;
    return jobs.send(
      NOTIFICATION_QUEUE,
      { provider: key.provider, pending },
      { trx, ...(gather ? { startAfter: gather } : {}) },
    );
  };

  /** A POST from the provider: verified, parsed and queued (or coalesced, or known already). */
  async function receive(
    id: string,
    input: { headers: IncomingHttpHeaders; rawBody: Buffer; source: string; query?: URLSearchParams },
  ): Promise<NotificationReceipt> {
    const { provider, hooks } = notifiable(deps.providers, id);
    if (!provider.enabled) throw notConfigured(provider.id);
    if (hooks.unsigned) {
      const verdict = await deps.windows.take(`notifications:${provider.id}:${input.source}`, sourceRule);
      if (!verdict.allowed) {
        throw tooManyRequests(
          `too many ${provider.id} notifications from this address`,
          verdict.retryAfterSeconds,
        );
      }
    }
    const verdict = hooks.verify({
      headers: input.headers,
      rawBody: input.rawBody,
      ...(input.query ? { query: input.query } : {}),
      secret: signingKey(provider),
      clientId: provider.credentials?.clientId ?? null,
      subscriptionIds: await subscriptionIds(provider.id),
      now: clock.now(),
    });
    if (verdict === 'unconfigured') throw notConfigured(provider.id);
    if (verdict !== 'valid') throw unauthorized(`the ${provider.id} notification failed verification`);
    let parsed: ProviderNotification[];
    try {
      parsed = hooks.parse(input.rawBody, clock.now());
    } catch {
      throw badRequest(`the ${provider.id} notification is not the JSON the provider documents`);
    }
    const actionable = await bounded(
      provider,
      parsed.filter((item): item is Actionable => item.kind !== 'ignored'),
    );
    for (const item of parsed)
      if (item.kind === 'ignored')
        log.debug({ provider: provider.id, reason: item.reason }, 'notification ignored');
    if (hooks.unsigned) return takeUnsigned(provider, hooks.unsigned.coalesce, actionable);
    return takeSigned(provider, input.rawBody, actionable);
  }

  /** The provider's GET handshake; 403 when the token is not the one Tributary gave. */
  function handshake(id: string, query: URLSearchParams, verifyToken: string): unknown {
    const { provider, hooks } = notifiable(deps.providers, id);
    if (!provider.enabled) throw notConfigured(provider.id);
    const answer = hooks.handshake(query, verifyToken);
    if (!answer) throw forbidden(`not a valid ${provider.id} subscription handshake`);
    return answer.body;
  }

  async function usersOf(providerId: string, providerUserId: string): Promise<ConnectionRow[]> {
    return findUsersByAccount(db, providerId, providerUserId);
  }

  /** Fetches the changed days again for one connection and sends them on; returns records sent. */
  async function refetch(
    provider: ResolvedProvider,
    hooks: NotificationHooks,
    user: ConnectionRow,
    notification: DataNotification,
    sinks: NotificationSinks,
  ): Promise<number> {
    const context = deps.dataContext(user);
    const source = provider.connector?.data;
    if (!context.http || !source) return 0;
    const changed = await hooks.locate(notification, context.http);
    if (!changed) return 0;
    if ('access' in changed) {
      // Confirmed with the user's own credentials, so even an unsigned notification counts.
      if (changed.access === 'revoked')
        await db.transaction().execute((trx) => sinks.markAccessRevoked(trx, user.id));
      else if (sinks.changePermissions) {
        const granted = changed.granted;
        const change = sinks.changePermissions;
        await db.transaction().execute((trx) => change(trx, user.id, granted));
      }
      return 0;
    }
    const notified = changed.notified === undefined ? {} : { notified: changed.notified };
    return refetchChanged(db, provider, user, { ...context, ...notified }, changed, sinks);
  }

  async function act(
    provider: ResolvedProvider,
    hooks: NotificationHooks,
    notification: Actionable,
    sinks: NotificationSinks,
  ): Promise<void> {
    const users = await usersOf(provider.id, notification.providerUserId);
    if (notification.kind === 'revoked') {
      for (const user of users)
        await db.transaction().execute((trx) => sinks.markAccessRevoked(trx, user.id));
      return;
    }
    // Callbacks are fetched once: one already fetched (a re-sent or replayed ping) is not again.
    const fresh = await unfetched(provider.id, notification);
    if (!fresh) return;
    // Inactive users receive no data updates; broken and revoked ones have nothing to fetch with.
    for (const user of users.filter((candidate) => candidate.status === 'active' && candidate.active)) {
      try {
        const sent = await refetch(provider, hooks, user, fresh, sinks);
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
    await markFetched(provider.id, fresh.callbacks);
  }

  async function handle(job: NotificationJob, sinks: NotificationSinks): Promise<void> {
    const provider = deps.providers.get(job.provider);
    const hooks = provider?.connector?.notifications;
    if (!provider || !hooks) return;
    if ('notification' in job) return act(provider, hooks, job.notification, sinks);

    // A pending refetch: fetch what it holds now; if more was folded in meanwhile, go again.
    const key: PendingKey = { provider: provider.id, ...job.pending };
    const pending = await readPending(db, key);
    if (!pending) return;
    await act(provider, hooks, pending.notification, sinks);
    if (await settlePending(db, key, pending.version)) return;
    await db.transaction().execute(async (trx) => {
      await touchPending(trx, key, clock.now());
      await sendPending(trx, key);
    });
  }

  /** Forgets receipts past their retention window (daily maintenance). */
  const prune = () => pruneReceipts(db, clock.now());

  return { receive, handshake, handle, prune };
}

export type Notifications = ReturnType<typeof createNotifications>;

// The queues this module owns, with their payloads (see jobs/queues.ts).
