// The connector framework as one service: the token lifecycle, request budgets, HTTP clients
// for providers, backfill, inbound notifications and push subscriptions. It is generic over
// providers; everything specific comes from `connector.api` and `connector.notifications`.
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { readProviderTokens } from '../../provider-access/token-store.ts';
import { findUserById } from '../users/repo.ts';
import type { UserRow } from '../users/service.ts';
import type { DataSourceContext } from '../../provider-kit/data-source.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import { createBackfill } from './backfill.ts';
import { createProviderHttp, httpSettingsOf } from '../../provider-access/http-client.ts';
import { createNotifications } from './notifications.ts';
import { createPolling } from './polling.ts';
import { createRequestBudget } from '../../provider-access/request-budget.ts';
import { callbackPath, createSubscriptions } from './subscriptions.ts';
import { createTokenManager } from '../../provider-access/tokens.ts';
import type { ProviderHttp } from '../../provider-kit/api.ts';

export type ConnectorsDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  secretBox: SecretBox;
  log: Logger;
  jobs: JobQueue;
  providers: ProviderCatalog;
  /** From the connections service: the status changes and their events. */
  connections: {
    markConnectionBroken(trx: Db, userId: string, reason: string): Promise<boolean>;
    markAccessRevoked(trx: Db, userId: string): Promise<boolean>;
  };
};

export const SETUP_QUEUE = 'connectors.setup';
export type SetupJob = { userId: string; provider: string };

export function createConnectorsService(deps: ConnectorsDeps) {
  const { db, clock, config, secretBox, log, providers } = deps;
  const settings = httpSettingsOf(config);
  const budget = createRequestBudget({ db, clock, config });
  const tokens = createTokenManager({
    db,
    clock,
    config,
    secretBox,
    log,
    providers,
    markConnectionBroken: (trx, userId, reason) => deps.connections.markConnectionBroken(trx, userId, reason),
  });
  const runtime = { config, clock, secretBox };

  /** HTTP for one user of a provider (their token, their share of the budget). */
  function userHttp(provider: ResolvedProvider, user: { id: string; provider: string }): ProviderHttp {
    return createProviderHttp({
      provider,
      userId: user.id,
      session: tokens.session(user),
      budget,
      settings,
      clock,
      log,
    });
  }

  /** HTTP as the application (client credentials; subscriptions). */
  function appHttp(provider: ResolvedProvider): ProviderHttp {
    return createProviderHttp({ provider, userId: null, session: null, budget, settings, clock, log });
  }

  /**
   * How the data module reads a user: providers with a real API get the framework's HTTP client
   * (and credentials refreshed ahead of expiry); the others keep reading stored credentials.
   */
  function dataContext(user: UserRow): DataSourceContext {
    const provider = providers.get(user.provider);
    const base = {
      user: { id: user.id, providerUserId: user.provider_user_id, scopes: user.scopes },
      runtime,
    };
    if (!provider?.connector?.api) {
      return {
        ...base,
        credentials: async () => {
          const stored = await readProviderTokens(db, user.id);
          return stored ? { accessToken: secretBox.open(stored.access_token) } : null;
        },
      };
    }
    return {
      ...base,
      credentials: async () => ({ accessToken: await tokens.current(user) }),
      http: userHttp(provider, user),
    };
  }

  const backfill = createBackfill({ db, clock, jobs: deps.jobs, log, providers });
  const notifications = createNotifications({
    db,
    config,
    clock,
    jobs: deps.jobs,
    log,
    providers,
    dataContext,
  });
  const polling = createPolling({ db, clock, config, jobs: deps.jobs, log, providers, dataContext });
  const subscriptions = createSubscriptions({ db, clock, config, providers, appHttp });

  return {
    tokens,
    budget,
    backfill,
    notifications,
    subscriptions,
    polling,
    dataContext,
    appHttp,
    /**
     * A connection became active (in the transaction that activated it): plan its backfill, or
     * first queue the provider's post-consent step, which cannot run inside this transaction
     * (its HTTP client reads the token this transaction has not committed yet).
     */
    async onConnected(trx: Db, connection: { userId: string; provider: string }): Promise<void> {
      await polling.start(trx, connection);
      if (providers.get(connection.provider)?.connector?.api?.onConnected) {
        await deps.jobs.send<SetupJob>(SETUP_QUEUE, connection, { trx });
        return;
      }
      await backfill.start(trx, connection);
    },
    /** The queued post-consent step; the backfill is planned once it has succeeded. */
    async setup(job: SetupJob): Promise<void> {
      const provider = providers.get(job.provider);
      const hook = provider?.connector?.api?.onConnected;
      const user = await findUserById(db, job.userId);
      if (!provider || !hook || !user || user.status !== 'active') return;
      await hook({
        http: userHttp(provider, user),
        user: { id: user.id, providerUserId: user.provider_user_id, scopes: user.scopes },
        callbackUrl: `${config.publicUrl.replace(/\/+$/, '')}${callbackPath(provider.id)}`,
      });
      const planned = await backfill.progress(user.id);
      if (planned.length === 0) await db.transaction().execute((trx) => backfill.start(trx, job));
    },
    /** Runs the connector's own revocation, if it has one; whether it did. */
    async revoke(userId: string): Promise<boolean> {
      const user = await findUserById(db, userId);
      const provider = user ? providers.get(user.provider) : undefined;
      const hook = provider?.connector?.api?.revoke;
      if (!user || !provider || !hook) return false;
      await hook({
        http: userHttp(provider, user),
        user: { id: user.id, providerUserId: user.provider_user_id, scopes: user.scopes },
      });
      return true;
    },
    /** A usable access token for revocation at deauthentication; null when none can be had. */
    async freshAccessToken(userId: string): Promise<string | null> {
      const user = await findUserById(db, userId);
      if (!user || !providers.get(user.provider)?.connector?.api) return null;
      return tokens.freshOrNull(user);
    },
  };
}

export type ConnectorsService = ReturnType<typeof createConnectorsService>;
