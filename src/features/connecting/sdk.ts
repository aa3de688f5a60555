import { newUuid } from '../../core/ids.ts';
import type { Db } from '../../store/db.ts';
import * as connectionsRepo from '../connections/repo.ts';
import { toWireUser, type ConnectionRow } from '../connections/service.ts';
import { buildAuthSuccessEvent, buildUserReauthEvent, connectionEnvelope } from './events.ts';
import type { ConnectingInternals } from './ports.ts';

export type SdkConnectionInput = { developerId: string; provider: string; referenceId: string | null };

/**
 * Connections made by a mobile SDK (no consent page: the app holds the device's permission). The
 * user is created active in the caller's transaction, with the same auth event and `onConnected`
 * work as a web connection. As with the vendor's SDKs, connecting the same (developer,
 * reference_id, provider) again, e.g. after a re-install, gives a new user: the old one is deleted
 * and a `user_reauth` event links the two.
 */
export function createSdkConnections(deps: ConnectingInternals) {
  const { webhooks } = deps;
  return {
    async activateSdkConnection(trx: Db, input: SdkConnectionInput): Promise<ConnectionRow> {
      const pending = await connectionsRepo.insertPendingConnection(trx, {
        id: newUuid(),
        developer_id: input.developerId,
        provider: input.provider,
        reference_id: input.referenceId,
      });
      const row = await connectionsRepo.activateConnection(trx, pending.id, {
        scopes: null,
        provider_user_id: null,
      });
      const user = toWireUser(row);
      await webhooks.emit(
        trx,
        input.developerId,
        connectionEnvelope(buildAuthSuccessEvent(user, { referenceId: input.referenceId })),
      );
      for (const handler of deps.connectedHandlers)
        await handler(trx, { userId: row.id, provider: input.provider, widgetSessionId: null });
      if (input.referenceId) {
        const previous = await connectionsRepo.findConnectionsByReference(
          trx,
          input.developerId,
          input.referenceId,
        );
        for (const old of previous) {
          if (old.id === row.id || old.provider !== input.provider) continue;
          await webhooks.dropPendingForUser(trx, old.id);
          await connectionsRepo.deleteConnection(trx, old.id);
          await webhooks.emit(
            trx,
            input.developerId,
            connectionEnvelope(buildUserReauthEvent(user, toWireUser(old))),
          );
        }
      }
      return row;
    },
  };
}
