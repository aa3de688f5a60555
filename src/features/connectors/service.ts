// The connector framework's sync side: backfill, inbound notifications, polling and push
// subscriptions, generic over providers (everything specific comes from `connector.api` and
// `connector.notifications`). Provider access itself (tokens, budgets, HTTP) is in
// provider-access/access.ts. A connection that becomes active is planned here through the
// connecting feature's `onConnected` hook.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Config } from '../../core/config.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { ProviderAccess } from '../../provider-access/access.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectingService } from '../connecting/service.ts';
import { createRequestWindows } from '../limits/windows.ts';
import { findConnectionById } from '../connections/repo.ts';
import { originalsKeptOf } from '../original-files/keep.ts';
import { pruneDayCompanions } from '../day-companions/store.ts';
import { dayCompanionsSettings } from '../day-companions/settings.ts';
import { createBackfill } from './backfill.ts';
import { createNotifications } from './notifications.ts';
import { createPolling } from './polling.ts';
import { callbackPath, createSubscriptions } from './subscriptions.ts';

export type ConnectorsDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  log: Logger;
  jobs: JobQueue;
  providers: ProviderCatalog;
  access: ProviderAccess;
  /** Where activations come from (its `onConnected` hook). */
  connecting: Pick<ConnectingService, 'onConnected'>;
};

export const SETUP_QUEUE = 'connectors.setup';
export type SetupJob = { userId: string; provider: string };

export function createConnectorsService(deps: ConnectorsDeps) {
  const { db, clock, config, log, providers, access } = deps;
  const { appHttp, userHttp } = access;
  // Refetches (notifications, polls) know the connection's kept original files, as syncs do.
  const dataContext = (user: Parameters<typeof access.dataContext>[0]) => ({
    ...access.dataContext(user),
    originalsKept: originalsKeptOf(db, user.id),
  });
  const dayCompanionsRetentionDays = config.settings.get(dayCompanionsSettings).retentionDays;

  const backfill = createBackfill({ db, clock, jobs: deps.jobs, log, providers });
  const notifications = createNotifications({
    db,
    config,
    clock,
    jobs: deps.jobs,
    log,
    providers,
    // Senders of unsigned notifications are counted in the database, the same for every process.
    windows: createRequestWindows({ db, clock }),
    dataContext,
  });
  const polling = createPolling({ db, clock, config, jobs: deps.jobs, log, providers, dataContext });
  const subscriptions = createSubscriptions({ db, clock, config, providers, appHttp });

  /**
   * A connection became active (in the transaction that activated it): plan its backfill, or
   * first queue the provider's post-consent step, which cannot run inside this transaction
   * (its HTTP client reads the token this transaction has not committed yet).
   */
  async function onConnected(trx: Db, connection: { userId: string; provider: string }): Promise<void> {
    await polling.start(trx, connection);
    if (providers.get(connection.provider)?.connector?.api?.onConnected) {
      await deps.jobs.send(
        SETUP_QUEUE,
        { userId: connection.userId, provider: connection.provider },
        { trx },
      );
      return;
    }
    await backfill.start(trx, connection);
  }
  deps.connecting.onConnected(onConnected);

  return {
    tokens: access.tokens,
    budget: access.budget,
    backfill,
    notifications,
    subscriptions,
    polling,
    dataContext,
    appHttp,
    onConnected,
    /** Forgets the days whose kept summaries are past their retention (daily maintenance). */
    pruneDayCompanions: () => pruneDayCompanions(db, clock.now(), dayCompanionsRetentionDays),
    /** The queued post-consent step; the backfill is planned once it has succeeded. */
    async setup(job: SetupJob): Promise<void> {
      const provider = providers.get(job.provider);
      const hook = provider?.connector?.api?.onConnected;
      const user = await findConnectionById(db, job.userId);
      if (!provider || !hook || !user || user.status !== 'active') return;
      await hook({
        http: userHttp(provider, user),
        user: access.sourceUser(user),
        callbackUrl: `${config.publicUrl.replace(/\/+$/, '')}${callbackPath(provider.id)}`,
      });
      const planned = await backfill.progress(user.id);
      if (planned.length === 0) await db.transaction().execute((trx) => backfill.start(trx, job));
    },
  };
}

export type ConnectorsService = ReturnType<typeof createConnectorsService>;

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [SETUP_QUEUE]: SetupJob;
  }
}
