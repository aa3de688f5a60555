import { createAuthLinks } from './auth-link.ts';
import { createCallbacks } from './callback.ts';
import { createLifecycle } from './lifecycle.ts';
import type { ConnectionsDeps } from './ports.ts';

export type { AuthLink, AuthLinkInput } from './auth-link.ts';
export type { CallbackOutcome, CallbackQuery } from './callback.ts';
export type { ConnectionsDeps, WebhookEmitter } from './ports.ts';

/**
 * Connecting and disconnecting end users. Generic over providers: everything specific comes
 * from the provider declarations, so no provider is named in this module.
 */
export function createConnectionsService(deps: ConnectionsDeps) {
  return { ...createAuthLinks(deps), ...createCallbacks(deps), ...createLifecycle(deps) };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;
