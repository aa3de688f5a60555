import { createHash, randomBytes } from 'node:crypto';
import { newUuid } from '../../core/ids.ts';
import { oauthCallbackUrl } from '../../provider-kit/callback-url.ts';
import * as connectionsRepo from '../connections/repo.ts';
import { resolveLanguage } from '../../core/languages.ts';
import { buildAuthorizeUrl, newPkcePair } from '../../provider-access/oauth.ts';
import type { Db } from '../../store/db.ts';
import {
  AUTH_SESSION_TTL_MS,
  type ConnectingDeps,
  EXPIRE_AUTH_SESSION_QUEUE,
  SDK_TOKEN_TTL_SECONDS,
} from './ports.ts';
import { parseRedirectUrl, parseReferenceId } from './redirects.ts';
import * as repo from './repo.ts';

/** The hosted page where an end user enters a personal API key (authKind `api_key`). */
export const API_KEY_ROUTE = '/v2/auth/key/:provider';
export const apiKeyPageUrl = (publicUrl: string, providerId: string, state: string) =>
  `${publicUrl}/v2/auth/key/${providerId}?state=${encodeURIComponent(state)}`;

export const hashSecret = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

export type AuthLinkInput = {
  developerId: string;
  resource: string;
  referenceId?: string | null | undefined;
  language?: string | null | undefined;
  successRedirectUrl?: string | null | undefined;
  failureRedirectUrl?: string | null | undefined;
  widgetSessionId?: string | null | undefined;
};

export type AuthLink = { userId: string; authUrl: string; provider: string; expiresAt: Date };

export function createAuthLinks(deps: ConnectingDeps) {
  const { db, clock, secretBox, integrations, jobs, config } = deps;

  /**
   * The pending user of the widget session's latest attempt, when the next attempt may take it
   * over: still pending, and that attempt not being completed by a callback right now (its user
   * could become active with the other provider's tokens).
   */
  async function reusablePendingConnection(trx: Db, input: AuthLinkInput) {
    if (!input.widgetSessionId) return undefined;
    const latest = await repo.latestAuthSessionOfWidget(trx, input.widgetSessionId);
    if (!latest || latest.consumed_at) return undefined;
    const user = await connectionsRepo.findConnectionById(trx, latest.user_id);
    return user?.status === 'pending' && user.developer_id === input.developerId ? user : undefined;
  }

  /**
   * A widget session holds at most one pending user at a time: a retry, or a switch to another
   * provider, takes over the user of the previous attempt (whose `state` stops working) instead
   * of leaving one more pending user, and later one more auth error event, behind.
   */
  async function pendingConnectionFor(
    trx: Db,
    input: AuthLinkInput,
    provider: string,
    referenceId: string | null,
  ) {
    const previous = await reusablePendingConnection(trx, input);
    if (previous) {
      await repo.deleteOpenAuthSessions(trx, previous.id);
      const reassigned = await connectionsRepo.reassignPendingConnection(trx, previous.id, provider);
      if (reassigned) return reassigned;
    }
    return connectionsRepo.insertPendingConnection(trx, {
      id: newUuid(),
      developer_id: input.developerId,
      provider,
      reference_id: referenceId,
    });
  }

  return {
    /**
     * The user exists (pending) from here on, so the developer holds a user_id before consent.
     * `state` is 32 random bytes, stored hashed, valid once and for AUTH_SESSION_TTL_MS. Runs in
     * `trx` when given (the widget holds its session's lock in it), otherwise in its own.
     */
    async createAuthLink(input: AuthLinkInput, trx?: Db): Promise<AuthLink> {
      const successUrl = parseRedirectUrl('auth_success_redirect_url', input.successRedirectUrl);
      const failureUrl = parseRedirectUrl('auth_failure_redirect_url', input.failureRedirectUrl);
      const referenceId = parseReferenceId(input.referenceId);
      const language = resolveLanguage(input.language);
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + AUTH_SESSION_TTL_MS);

      const create = async (trx: Db): Promise<AuthLink> => {
        const provider = await integrations.requireConnectable(input.developerId, input.resource, trx);
        const state = randomBytes(32).toString('base64url');
        const pkce = provider.declaration.authKind === 'oauth2_pkce' ? newPkcePair() : null;
        const redirectUri = oauthCallbackUrl(config.publicUrl, provider.id);
        const user = await pendingConnectionFor(trx, input, provider.id, referenceId);
        const authSessionId = newUuid();
        await repo.insertAuthSession(trx, {
          id: authSessionId,
          state_hash: hashSecret(state),
          user_id: user.id,
          developer_id: input.developerId,
          provider: provider.id,
          code_verifier: pkce ? secretBox.seal(pkce.verifier) : null,
          redirect_uri: redirectUri,
          requested_scopes: provider.oauth?.scopes.join(',') || null,
          success_redirect_url: successUrl,
          failure_redirect_url: failureUrl,
          reference_id: referenceId,
          language,
          widget_session_id: input.widgetSessionId ?? null,
          expires_at: expiresAt,
          consumed_at: null,
        });
        await jobs.send(
          EXPIRE_AUTH_SESSION_QUEUE,
          { authSessionId },
          { trx, startAfter: new Date(expiresAt.getTime() + 5_000), id: authSessionId },
        );
        // A provider whose users hand over an API key gets Tributary's own key page instead.
        const authUrl =
          provider.declaration.authKind === 'api_key'
            ? apiKeyPageUrl(config.publicUrl, provider.id, state)
            : buildAuthorizeUrl(provider, {
                state,
                redirectUri,
                codeChallenge: pkce?.challenge ?? null,
                language,
              });
        return { userId: user.id, authUrl, provider: provider.id, expiresAt };
      };
      return trx ? create(trx) : db.transaction().execute(create);
    },

    /**
     * A single-use token for a mobile SDK to create an SDK-based connection; only its hash is
     * kept. A reference id given here binds it: the connection made with it carries that one.
     */
    async issueSdkToken(
      developerId: string,
      referenceId?: string | null,
    ): Promise<{ token: string; expiresIn: number }> {
      const token = randomBytes(32).toString('base64url');
      await repo.insertSdkToken(db, {
        token_hash: hashSecret(token),
        developer_id: developerId,
        reference_id: parseReferenceId(referenceId),
        expires_at: new Date(clock.now().getTime() + SDK_TOKEN_TTL_SECONDS * 1000),
      });
      return { token, expiresIn: SDK_TOKEN_TTL_SECONDS };
    },

    /**
     * For the SDK upload side, once: the developer the token was issued to and the reference id
     * it was bound to (null when none); undefined for an unknown, expired or spent token.
     */
    async consumeSdkToken(
      token: string,
    ): Promise<{ developerId: string; referenceId: string | null } | undefined> {
      const row = await repo.consumeSdkToken(db, hashSecret(token), clock.now());
      return row && { developerId: row.developer_id, referenceId: row.reference_id };
    },
  };
}
