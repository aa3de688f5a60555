import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { ProviderAccess } from '../../provider-access/access.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { ProviderRuntime } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import type { IntegrationsService } from '../integrations/service.ts';
import type { WebhookEnvelope } from '../delivery/events.ts';

/**
 * What the connecting service needs from the webhook engine: the event (see events.ts) is written
 * in the caller's transaction, so a connection change and its event commit (or vanish) together.
 */
export type WebhookEmitter = {
  emit(trx: Db, developerId: string, envelope: WebhookEnvelope): Promise<string>;
  dropPendingForUser(trx: Db, userId: string): Promise<unknown>;
};

export type ConnectingDeps = {
  db: Db;
  config: Config;
  clock: Clock;
  secretBox: SecretBox;
  log: Logger;
  jobs: JobQueue;
  providers: ProviderCatalog;
  integrations: IntegrationsService;
  webhooks: WebhookEmitter;
  /** Tokens and connector hooks for revocation at deauthentication. */
  access: Pick<ProviderAccess, 'freshAccessToken' | 'revokeWithConnector' | 'onConnectionBroken' | 'keyHttp'>;
};

/** A connection that just became active, as its `onConnected` handlers see it. */
export type ActivatedConnection = { userId: string; provider: string; widgetSessionId: string | null };
/** Runs in the activating transaction: what it writes commits (or vanishes) with the connection. */
export type ConnectedHandler = (trx: Db, connection: ActivatedConnection) => Promise<void>;

/** What the parts of the service share: the deps plus the handlers registered with `onConnected`. */
export type ConnectingInternals = ConnectingDeps & { connectedHandlers: ConnectedHandler[] };

export const providerRuntime = (deps: ConnectingDeps): ProviderRuntime => ({
  config: deps.config,
  clock: deps.clock,
  secretBox: deps.secretBox,
});

/** Durable per-session timer: a flow nobody finished is failed (auth error event) when it expires. */
export const EXPIRE_AUTH_SESSION_QUEUE = 'connections.expire-auth-session';
export type ExpireAuthSessionJob = { authSessionId: string };

export const AUTH_SESSION_TTL_MS = 15 * 60_000;
export const SDK_TOKEN_TTL_SECONDS = 180;

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [EXPIRE_AUTH_SESSION_QUEUE]: ExpireAuthSessionJob;
  }
}
