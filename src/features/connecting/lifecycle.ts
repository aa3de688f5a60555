import { notFound } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import * as connectionsRepo from '../connections/repo.ts';
import { findConnectionForDeveloper, toWireUser } from '../connections/service.ts';
import { revokeAccess } from '../../provider-access/oauth.ts';
import { buildPermissionChangeEvent, buildUserNoticeEvent, connectionEnvelope } from './events.ts';
import { type ConnectingDeps, providerRuntime } from './ports.ts';
import * as tokenStore from '../../provider-access/token-store.ts';
import { findReceipt, hasReceipt, insertReceipt } from './erasure-receipts.ts';
import { retryTransient } from '../../store/transient-retry.ts';
import { scopeChange } from './scope-change.ts';

export function createLifecycle(deps: ConnectingDeps) {
  const { db, secretBox, providers, webhooks, log, clock } = deps;
  const runtime = providerRuntime(deps);

  /**
   * Deletes the connection and everything of its user, with the deauth event and the erasure receipt, in
   * `trx`; false when there was no such user. A later try (`attempt` > 1) whose earlier try
   * committed as its connection went finds the receipt instead: that deletion happened.
   */
  async function eraseConnection(
    trx: Db,
    developerId: string,
    user: connectionsRepo.ConnectionRow,
    attempt: number,
  ) {
    await webhooks.dropPendingForUser(trx, user.id);
    const deletedRows = await connectionsRepo.countCascadingRows(trx, user.id);
    if (!(await connectionsRepo.deleteConnection(trx, user.id)))
      return attempt > 1 && (await hasReceipt(trx, developerId, user.id));
    await insertReceipt(trx, {
      developerId,
      userId: user.id,
      provider: user.provider,
      at: clock.now(),
      deletedRows,
    });
    const deauth = buildUserNoticeEvent('deauth', toWireUser(user));
    await webhooks.emit(trx, developerId, connectionEnvelope(deauth));
    return true;
  }

  return {
    /**
     * Disconnects a user: revokes at the provider where it allows it (best effort: a provider
     * outage must not keep a user connected here), then deletes the user and everything of
     * theirs in the transaction that writes the deauth event and the erasure receipt (the rows
     * deleted per table, counted just before the delete).
     */
    async deauthenticate(developerId: string, userId: string): Promise<void> {
      const user = await findConnectionForDeveloper(db, developerId, userId);
      const provider = providers.get(user.provider);
      const tokens = await tokenStore.readProviderTokens(db, user.id);
      if (provider && tokens) {
        try {
          // A connector that revokes with signed calls does it itself; the others are declarative.
          if (!(await deps.access.revokeWithConnector(user))) {
            await revokeAccess(provider, runtime, {
              accessToken: (await deps.access.freshAccessToken(user)) ?? secretBox.open(tokens.access_token),
              providerUserId: tokens.provider_user_id ?? user.provider_user_id,
            });
          }
        } catch (error) {
          log.warn(
            { provider: provider.id, userId: user.id, err: error },
            'token revocation failed; deleting anyway',
          );
        }
      }
      // The user's own jobs (a sync, a merge) may be writing their rows as the cascade deletes
      // them: a deadlock, or a lost connection, is the database's doing, not the request's, and a
      // 503 now would leave connected here a user whose access the provider has just revoked. So
      // the deletion is tried again (store/transient-retry.ts).
      const deleted = await retryTransient(
        'deauthenticating a user',
        (attempt) => db.transaction().execute((trx) => eraseConnection(trx, developerId, user, attempt)),
        log,
      );
      if (!deleted) throw notFound(`no user with user_id ${userId}`);
    },

    /** What deauthenticating the user deleted (kept after the user is gone), or a 404. */
    erasureReceipt(developerId: string, userId: string) {
      return findReceipt(db, developerId, userId);
    },

    /**
     * A refresh failed for good (or the provider answered 401/403/412): the user needs to
     * reconnect. Emits `connection_error` once, on the transition; returns whether it happened.
     */
    async markConnectionBroken(trx: Db, userId: string, reason: string): Promise<boolean> {
      const user = await connectionsRepo.changeStatus(trx, userId, ['active'], 'broken');
      if (!user) return false;
      log.warn({ userId, provider: user.provider, reason }, 'connection broken');
      const notice = buildUserNoticeEvent('connection_error', toWireUser(user));
      await webhooks.emit(trx, user.developer_id, connectionEnvelope(notice));
      return true;
    },

    /** The provider told us the user withdrew access: tokens are useless, so they go. */
    async markAccessRevoked(trx: Db, userId: string): Promise<boolean> {
      const user = await connectionsRepo.changeStatus(trx, userId, ['active', 'broken'], 'revoked');
      if (!user) return false;
      await tokenStore.deleteProviderTokens(trx, userId);
      const notice = buildUserNoticeEvent('access_revoked', toWireUser(user));
      await webhooks.emit(trx, user.developer_id, connectionEnvelope(notice));
      return true;
    },

    /**
     * The provider told us (and confirmed) which permissions the user now grants: stored as the
     * connection's scopes, and a `permission_change` naming what was added and removed.
     */
    async changePermissions(trx: Db, userId: string, granted: readonly string[]): Promise<boolean> {
      const before = await connectionsRepo.findConnectionById(trx, userId);
      if (!before || before.status !== 'active') return false;
      const change = scopeChange(before.scopes, granted);
      if (!change) return false;
      const user = await connectionsRepo.setScopes(trx, userId, [...new Set(granted)].sort().join(' '));
      if (!user) return false;
      const event = buildPermissionChangeEvent(toWireUser(user), change);
      await webhooks.emit(trx, user.developer_id, connectionEnvelope(event));
      return true;
    },
  };
}
