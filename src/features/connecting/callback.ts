import type { ResolvedProvider } from '../../provider-access/catalog.ts';
import type { TokenSet } from '../../provider-kit/types.ts';
import { findDeveloper } from '../developers/repo.ts';
import { findConnectionsWithAccount } from '../connections/accounts-repo.ts';
import * as connectionsRepo from '../connections/repo.ts';
import { toWireUser } from '../connections/service.ts';
import type { Language } from '../../core/languages.ts';
import { resolveLanguage } from '../../core/languages.ts';
import { hashSecret } from './auth-link.ts';
import {
  buildAuthErrorEvent,
  buildAuthSuccessEvent,
  buildPermissionChangeEvent,
  buildUserReauthEvent,
  connectionEnvelope,
} from './events.ts';
import { exchangeAuthorizationCode, OAuthFlowError } from '../../provider-access/oauth.ts';
import { type ConnectingInternals, providerRuntime } from './ports.ts';
import { withOutcome } from './redirects.ts';
import { scopeChange } from './scope-change.ts';
import type { AuthSessionRow } from './repo.ts';
import * as repo from './repo.ts';
import * as tokenStore from '../../provider-access/token-store.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import { databaseFault, postgresFault } from '../../core/errors.ts';
import { retryTransient } from '../../store/transient-retry.ts';

/** Tributary's own outcome pages, used when the developer gave no redirect URL. */
export const SUCCESS_PAGE_PATH = '/auth/success';
export const FAILURE_PAGE_PATH = '/auth/failure';

export type CallbackQuery = {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
  scope?: string | undefined;
};

/**
 * `redirect`: the flow ended (either way) and the browser goes to the developer's URL.
 * `invalid`: no usable session (unknown, reused or missing state): there is no URL to go to,
 * so the caller shows an error page.
 */
export type CallbackOutcome =
  | { kind: 'redirect'; outcome: 'success' | 'failure'; location: string; userId: string; reason?: string }
  | { kind: 'invalid'; language: Language; reason: string }
  /** The developer is suspended: the flow failed, and the browser gets a neutral page, no redirect. */
  | { kind: 'unavailable'; language: Language; reason: 'unavailable' };

/** The key page: shown again (with why the key was not taken), or the flow ended. */
export type ApiKeyOutcome =
  | {
      kind: 'form';
      language: Language;
      provider: ResolvedProvider;
      helpUrl: string | undefined;
      error: 'malformed' | 'refused' | 'unreachable' | null;
    }
  | CallbackOutcome;

const REASON = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * How long after spending its state a flow that neither connected nor failed counts as
 * abandoned at its expiry: far longer than its own steps take (a provider exchange is bounded
 * by PROVIDER_HTTP_TIMEOUT_MS, 10 s by default), so a flow still running is never failed under itself.
 */
const ABANDONED_FLOW_MS = 10 * 60_000;

export function createCallbacks(deps: ConnectingInternals) {
  const { db, clock, secretBox, providers, webhooks, log, config, access } = deps;
  const runtime = providerRuntime(deps);

  const defaultPage = (path: string, language: string) => `${config.publicUrl}${path}?lang=${language}`;

  /** Ends a flow that did not connect: auth error event, the pending user deleted, failure URL. */
  async function fail(session: AuthSessionRow, reason: string): Promise<CallbackOutcome> {
    // Run again as a whole if the database gives it up for a moment: a try that committed left no
    // pending connection, so the next finds nothing to do.
    await retryTransient(
      'failing an auth session',
      () =>
        db.transaction().execute(async (trx) => {
          const user = await connectionsRepo.findConnectionById(trx, session.user_id);
          if (user?.status !== 'pending') return;
          const event = buildAuthErrorEvent(toWireUser(user), {
            reason,
            referenceId: session.reference_id,
            widgetSessionId: session.widget_session_id,
          });
          await webhooks.dropPendingForUser(trx, user.id);
          await connectionsRepo.deleteConnection(trx, user.id);
          await webhooks.emit(trx, session.developer_id, connectionEnvelope(event));
        }),
      log,
    );
    const target = session.failure_redirect_url ?? defaultPage(FAILURE_PAGE_PATH, session.language);
    return {
      kind: 'redirect',
      outcome: 'failure',
      userId: session.user_id,
      reason,
      location: withOutcome(target, {
        resource: session.provider,
        reference_id: session.reference_id,
        reason,
      }),
    };
  }

  async function succeed(
    session: AuthSessionRow,
    provider: ResolvedProvider,
    exchanged: { tokens: TokenSet; accountId: string | null },
    grantedInCallback: string | undefined,
  ): Promise<CallbackOutcome> {
    const { tokens, accountId } = exchanged;
    const scopeList =
      tokens.scopes ?? grantedInCallback?.split(/[\s,]+/) ?? session.requested_scopes?.split(',') ?? [];
    const scopes = scopeList.filter(Boolean).join(',') || null;
    const now = clock.now();

    // The tokens exist only here (the provider hands them over once), so a transaction the
    // database gives up for a moment (a lost connection, a deadlock) is run again rather than
    // answered with a 503 that would lose them.
    const connected = await retryTransient('connecting', (attempt) => activate(attempt), log);
    if (!connected) return fail(session, 'user_deleted');

    const target = session.success_redirect_url ?? defaultPage(SUCCESS_PAGE_PATH, session.language);
    return {
      kind: 'redirect',
      outcome: 'success',
      userId: session.user_id,
      location: withOutcome(target, {
        user_id: session.user_id,
        resource: session.provider,
        reference_id: session.reference_id,
      }),
    };

    function activate(attempt: number) {
      return db.transaction().execute(async (trx) => {
        const pending = await connectionsRepo.findConnectionById(trx, session.user_id);
        // Active on a later try: the try before committed and lost its connection only after (or
        // another attempt of the same person connected it meanwhile); either way it is connected.
        if (attempt > 1 && pending?.status === 'active') return true;
        if (pending?.status !== 'pending') return false;
        await tokenStore.saveProviderTokens(
          trx,
          pending.id,
          {
            access_token: secretBox.seal(tokens.accessToken),
            refresh_token: tokens.refreshToken ? secretBox.seal(tokens.refreshToken) : null,
            expires_at: tokens.expiresAt,
            scopes,
            provider_user_id: accountId,
          },
          now,
        );
        const user = toWireUser(
          await connectionsRepo.activateConnection(trx, pending.id, { scopes, provider_user_id: accountId }),
        );
        const authEvent = buildAuthSuccessEvent(user, {
          referenceId: session.reference_id,
          widgetSessionId: session.widget_session_id,
        });
        await webhooks.emit(trx, session.developer_id, connectionEnvelope(authEvent));
        for (const handler of deps.connectedHandlers) {
          await handler(trx, {
            userId: user.user_id,
            provider: provider.id,
            widgetSessionId: session.widget_session_id,
          });
        }

        // The same provider account connected again: the new id replaces the old one.
        if (accountId) {
          const previous = await findConnectionsWithAccount(trx, {
            developerId: session.developer_id,
            provider: provider.id,
            providerUserId: accountId,
            exceptUserId: user.user_id,
          });
          for (const old of previous) {
            await webhooks.dropPendingForUser(trx, old.id);
            await connectionsRepo.deleteConnection(trx, old.id);
            const reauth = buildUserReauthEvent(user, toWireUser(old));
            await webhooks.emit(trx, session.developer_id, connectionEnvelope(reauth));
            // The account granted other scopes this time: said after the reauth, about the new user.
            const change = scopeChange(old.scopes, scopes);
            if (change) {
              const permissions = buildPermissionChangeEvent(user, change);
              await webhooks.emit(trx, session.developer_id, connectionEnvelope(permissions));
            }
          }
        }
        return true;
      });
    }
  }

  /**
   * Runs the rest of a flow whose `state` was just spent. If the database fails it (unreachable,
   * a deadlock, a full disk: the request is answered 503 or 507), the state is given back while
   * the connection is still pending, so the same link works again once the database does,
   * instead of answering "already used" to a flow that never ended. When the database is down
   * altogether the give-back fails too, and the session's expiry (expireAuthSession) ends it.
   */
  async function untilEnded<T>(session: AuthSessionRow, rest: () => Promise<T>): Promise<T> {
    try {
      return await rest();
    } catch (error) {
      if (!databaseFault(error)) throw error;
      try {
        const released = await db.transaction().execute(async (trx) => {
          const user = await connectionsRepo.findConnectionById(trx, session.user_id);
          return user?.status === 'pending' && (await repo.releaseAuthSession(trx, session));
        });
        log.warn(
          { authSessionId: session.id, released, err: error },
          released
            ? 'auth session failed on the database; its state can be used again'
            : 'auth session failed on the database; its flow had already ended',
        );
      } catch (releaseError) {
        log.error(
          { authSessionId: session.id, err: releaseError, cause: error },
          'auth session failed on the database and could not be given back; it ends at its expiry',
        );
      }
      throw error;
    }
  }

  /** A callback whose state is spent: the developer, the expiry, the provider's answer, the code. */
  async function finishCallback(
    session: AuthSessionRow,
    query: CallbackQuery,
    now: Date,
  ): Promise<CallbackOutcome> {
    // A suspended developer's links stop working, whenever they were handed out.
    if ((await findDeveloper(db, session.developer_id))?.status !== 'active') {
      await fail(session, 'unavailable');
      return { kind: 'unavailable', language: resolveLanguage(session.language), reason: 'unavailable' };
    }
    if (session.expires_at.getTime() <= now.getTime()) return fail(session, 'expired');
    if (query.error) return fail(session, REASON.test(query.error) ? query.error : 'provider_error');
    const provider = providers.get(session.provider);
    if (!query.code || !provider) return fail(session, 'invalid_request');

    let exchanged: { tokens: TokenSet; accountId: string | null };
    try {
      exchanged = await exchangeAuthorizationCode(provider, runtime, {
        code: query.code,
        codeVerifier: session.code_verifier ? secretBox.open(session.code_verifier) : null,
        redirectUri: session.redirect_uri,
      });
    } catch (error) {
      // A connector's exchange that failed on our database is not the provider refusing (its
      // socket errors are the provider's: postgresFault counts only PostgreSQL's own).
      if (!(error instanceof OAuthFlowError) || postgresFault(error)) throw error;
      log.warn({ provider: provider.id, reason: error.reason, err: error }, 'OAuth code exchange failed');
      return fail(session, error.reason);
    }
    return succeed(session, provider, exchanged, query.scope);
  }

  return {
    /** The provider sent the browser back: spend the state, exchange the code, connect or fail. */
    async completeCallback(providerParam: string, query: CallbackQuery): Promise<CallbackOutcome> {
      const invalid = (reason: string): CallbackOutcome => ({
        kind: 'invalid',
        language: resolveLanguage(null),
        reason,
      });
      if (!query.state) return invalid('missing_state');
      const found = await repo.findAuthSessionByState(db, hashSecret(query.state));
      if (!found || found.provider !== providerParam.toUpperCase()) return invalid('unknown_state');
      const now = clock.now();
      const session = await repo.consumeAuthSession(db, found.id, now);
      if (!session)
        return { kind: 'invalid', language: resolveLanguage(found.language), reason: 'state_used' };
      return untilEnded(session, () => finishCallback(session, query, now));
    },

    /**
     * The key page of an `api_key` provider, opened or submitted with the link's `state`:
     * `form` while the flow goes on (with `error` when the key was refused), otherwise as a
     * callback ends. The state is spent only when the flow ends (a key accepted, the user
     * cancelled, the link expired), so a mistyped key can be entered again.
     */
    async apiKeyStep(
      providerParam: string,
      input: { state?: string | undefined; apiKey?: string | undefined; cancel?: boolean },
    ): Promise<ApiKeyOutcome> {
      const invalid = (reason: string): CallbackOutcome => ({
        kind: 'invalid',
        language: resolveLanguage(null),
        reason,
      });
      if (!input.state) return invalid('missing_state');
      const found = await repo.findAuthSessionByState(db, hashSecret(input.state));
      const provider = found ? providers.get(found.provider) : undefined;
      if (
        !found ||
        !provider ||
        found.provider !== providerParam.toUpperCase() ||
        provider.declaration.authKind !== 'api_key' ||
        !provider.connector?.checkApiKey
      )
        return invalid('unknown_state');
      const language = resolveLanguage(found.language);
      if (found.consumed_at) return { kind: 'invalid', language, reason: 'state_used' };
      const end = async (then: (session: AuthSessionRow) => Promise<CallbackOutcome>) => {
        const session = await repo.consumeAuthSession(db, found.id, clock.now());
        if (!session) return { kind: 'invalid' as const, language, reason: 'state_used' };
        return untilEnded(session, () => then(session));
      };
      if ((await findDeveloper(db, found.developer_id))?.status !== 'active') {
        return end(async (session) => {
          await fail(session, 'unavailable');
          return { kind: 'unavailable', language, reason: 'unavailable' };
        });
      }
      if (found.expires_at.getTime() <= clock.now().getTime())
        return end((session) => fail(session, 'expired'));
      if (input.cancel) return end((session) => fail(session, 'access_denied'));
      const form = {
        kind: 'form' as const,
        language,
        provider,
        helpUrl: provider.declaration.apiKey?.helpUrl,
      };
      if (input.apiKey === undefined) return { ...form, error: null };
      const apiKey = input.apiKey.trim();
      // Printable ASCII without spaces: what a key shown to be copied looks like.
      if (apiKey.length > 512 || !/^[!-~]+$/.test(apiKey)) return { ...form, error: 'malformed' };

      let accountId: string | null;
      try {
        ({ accountId } = await provider.connector.checkApiKey(access.keyHttp(provider, apiKey)));
      } catch (error) {
        // A check that failed on our database (its request budget) is not the provider refusing.
        if (!(error instanceof ProviderDataError) || postgresFault(error)) throw error;
        log.warn({ provider: provider.id, reason: error.kind }, 'API key check failed');
        return { ...form, error: error.kind === 'unauthorized' ? 'refused' : 'unreachable' };
      }
      const tokens: TokenSet = {
        accessToken: apiKey,
        refreshToken: null,
        expiresAt: null,
        scopes: null,
        raw: {},
      };
      return end((session) => succeed(session, provider, { tokens, accountId }, undefined));
    },

    /**
     * The durable timer of an auth session: fails it if nobody came back in time, or if its flow
     * spent the state and then died on the database (or with its process) without connecting,
     * failing or giving the state back: its connection would otherwise stay pending for ever.
     */
    async expireAuthSession(authSessionId: string): Promise<boolean> {
      const found = await repo.findAuthSession(db, authSessionId);
      const now = clock.now();
      if (!found || found.expires_at.getTime() > now.getTime()) return false;
      if (found.consumed_at) {
        // A flow claimed lately may still be running (its provider exchange takes seconds).
        if (now.getTime() - found.consumed_at.getTime() < ABANDONED_FLOW_MS) return false;
        const user = await connectionsRepo.findConnectionById(db, found.user_id);
        if (user?.status !== 'pending') return false;
        await fail(found, 'expired');
        return true;
      }
      const session = await repo.consumeAuthSession(db, found.id, now);
      if (!session) return false;
      await fail(session, 'expired');
      return true;
    },
  };
}
