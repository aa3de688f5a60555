// Access to providers on behalf of one connection or of the application: the token lifecycle,
// request budgets and the provider HTTP client, assembled once per process. Features (sync, data,
// connections) reach providers only through this; it knows no feature. A connection whose tokens
// break for good is reported to whoever registered with `onConnectionBroken` (the connections
// feature), in the transaction that recorded the failure.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { type DataSourceContext, ProviderDataError } from '../provider-kit/data-source.ts';
import type { ProviderHttp } from '../provider-kit/http.ts';
import type { Db } from '../store/db.ts';
import type { ProviderCatalog, ResolvedProvider } from './catalog.ts';
import { createProviderHttp, httpSettingsOf } from './http-client.ts';
import { createRequestBudget } from './request-budget.ts';
import { readProviderTokens } from './token-store.ts';
import { createTokenManager } from './tokens.ts';
import { providerSettings } from './settings.ts';

/** A connection as provider access needs to see it (a `users` row has these columns). */
export type AccessUser = {
  id: string;
  provider: string;
  provider_user_id: string | null;
  scopes: string | null;
};

export type ConnectionBrokenHandler = (trx: Db, userId: string, reason: string) => Promise<boolean>;

export type ProviderAccessDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  secretBox: SecretBox;
  log: Logger;
  providers: ProviderCatalog;
};

export function createProviderAccess(deps: ProviderAccessDeps) {
  const { db, clock, config, secretBox, log, providers } = deps;
  const settings = httpSettingsOf(config);
  const budget = createRequestBudget({ db, clock, config });
  let brokenHandler: ConnectionBrokenHandler = async () => false;
  const tokens = createTokenManager({
    db,
    clock,
    config,
    secretBox,
    log,
    providers,
    markConnectionBroken: (trx, userId, reason) => brokenHandler(trx, userId, reason),
  });
  const runtime = { config, clock, secretBox };
  const sourceUser = (user: AccessUser) => ({
    id: user.id,
    providerUserId: user.provider_user_id,
    scopes: user.scopes,
  });

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
      headers: fixedHeaders(provider),
    });
  }

  /** The provider's `requestHeaders`, read from its settings (`<ID>_<setting>`). */
  function fixedHeaders(provider: ResolvedProvider): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, setting] of Object.entries(provider.connector?.api?.requestHeaders ?? {})) {
      const value = config.settings.forProvider(providerSettings, provider.id).extra[setting];
      if (value) headers[name] = value;
    }
    return headers;
  }

  /**
   * HTTP with a personal API key the user just entered (authKind `api_key`), before anything is
   * stored: a refused key is an `unauthorized` ProviderDataError, no refresh, nothing broken.
   */
  function keyHttp(provider: ResolvedProvider, apiKey: string): ProviderHttp {
    return createProviderHttp({
      provider,
      userId: null,
      session: {
        current: async () => apiKey,
        rejected: async () => {
          throw new ProviderDataError('unauthorized', `${provider.id} refused the API key`);
        },
        failed: async () => {},
      },
      budget,
      settings,
      clock,
      log,
      headers: fixedHeaders(provider),
    });
  }

  /** HTTP as the application (client credentials; subscriptions). */
  function appHttp(provider: ResolvedProvider): ProviderHttp {
    return createProviderHttp({
      provider,
      userId: null,
      session: null,
      budget,
      settings,
      clock,
      log,
      headers: fixedHeaders(provider),
    });
  }

  /**
   * How a provider's data source reads a user: providers with a real API get the framework's HTTP
   * client (and credentials refreshed ahead of expiry); the others read stored credentials.
   */
  function dataContext(user: AccessUser): DataSourceContext {
    const provider = providers.get(user.provider);
    const base = { user: sourceUser(user), runtime };
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

  return {
    tokens,
    budget,
    runtime,
    userHttp,
    appHttp,
    keyHttp,
    dataContext,
    sourceUser,
    /** Token refresh failures of these users (the dashboard shows token health). */
    async tokenHealth(userIds: readonly string[]) {
      if (userIds.length === 0)
        return new Map<
          string,
          {
            consecutiveFailures: number;
            lastError: string | null;
            lastFailureAt: Date | null;
            refreshedAt: Date | null;
          }
        >();
      const rows = await deps.db
        .selectFrom('connector_token_health')
        .selectAll()
        .where('user_id', 'in', [...userIds])
        .execute();
      return new Map(
        rows.map((row) => [
          row.user_id,
          {
            consecutiveFailures: row.consecutive_failures,
            lastError: row.last_error,
            lastFailureAt: row.last_failure_at,
            refreshedAt: row.refreshed_at,
          },
        ]),
      );
    },
    /** The connecting feature registers how a broken connection is recorded and announced. */
    onConnectionBroken(handler: ConnectionBrokenHandler): void {
      brokenHandler = handler;
    },
    /** Runs the connector's own revocation, if it has one; whether it did. */
    async revokeWithConnector(user: AccessUser): Promise<boolean> {
      const provider = providers.get(user.provider);
      const hook = provider?.connector?.api?.revoke;
      if (!provider || !hook) return false;
      await hook({ http: userHttp(provider, user), user: sourceUser(user) });
      return true;
    },
    /** A usable access token for revocation at deauthentication; null when none can be had. */
    async freshAccessToken(user: AccessUser): Promise<string | null> {
      if (!providers.get(user.provider)?.connector?.api) return null;
      return tokens.freshOrNull(user);
    },
  };
}

export type ProviderAccess = ReturnType<typeof createProviderAccess>;
