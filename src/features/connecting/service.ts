import { createAuthLinks } from './auth-link.ts';
import { createCallbacks } from './callback.ts';
import { createLifecycle } from './lifecycle.ts';
import type { ConnectedHandler, ConnectingDeps } from './ports.ts';
import { createSdkConnections } from './sdk.ts';

export type { AuthLink, AuthLinkInput } from './auth-link.ts';
export type { CallbackOutcome, CallbackQuery } from './callback.ts';
export type { ActivatedConnection, ConnectedHandler, ConnectingDeps, WebhookEmitter } from './ports.ts';

/**
 * Connecting and disconnecting end users. Generic over providers: everything specific comes
 * from the provider declarations, so no provider is named in this module.
 */
export function createConnectingService(deps: ConnectingDeps) {
  const internals = { ...deps, connectedHandlers: [] as ConnectedHandler[] };
  const lifecycle = createLifecycle(internals);
  deps.access.onConnectionBroken((trx, userId, reason) =>
    lifecycle.markConnectionBroken(trx, userId, reason),
  );
  return {
    ...createAuthLinks(internals),
    ...createCallbacks(internals),
    ...lifecycle,
    ...createSdkConnections(internals),
    /**
     * Registers work to do when a connection becomes active, in its activating transaction
     * (the connectors feature plans the backfill; the widget closes its session).
     */
    onConnected(handler: ConnectedHandler): void {
      internals.connectedHandlers.push(handler);
    },
  };
}

export type ConnectingService = ReturnType<typeof createConnectingService>;
