import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { ProviderRuntime } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import type { IntegrationsService } from '../integrations/service.ts';
import type { WebhookEvent } from '../webhooks/events.ts';

/**
 * What the connections service needs from the webhook engine: the event is written in the
 * caller's transaction, so a connection change and its event commit (or vanish) together.
 */
export type WebhookEmitter = {
  emit(
    trx: Db,
    developerId: string,
    event: WebhookEvent,
    options?: { userId?: string; reference?: string },
  ): Promise<string>;
  dropPendingForUser(trx: Db, userId: string): Promise<unknown>;
};

export type ConnectionsDeps = {
  db: Db;
  config: Config;
  clock: Clock;
  secretBox: SecretBox;
  log: Logger;
  jobs: JobQueue;
  providers: ProviderCatalog;
  integrations: IntegrationsService;
  webhooks: WebhookEmitter;
  /** A connection became active, in its activating transaction (the connector framework plans a backfill). */
  onConnected?: (trx: Db, connection: { userId: string; provider: string }) => Promise<void>;
  /** A usable access token for revocation (refreshed if it had expired); null when none can be had. */
  freshAccessToken?: (userId: string) => Promise<string | null>;
  /** Revocation the connector does itself (signed calls); false when it has no such hook. */
  revokeWithConnector?: (userId: string) => Promise<boolean>;
};

export const providerRuntime = (deps: ConnectionsDeps): ProviderRuntime => ({
  config: deps.config,
  clock: deps.clock,
  secretBox: deps.secretBox,
});

/** Durable per-session timer: a flow nobody finished is failed (auth error event) when it expires. */
export const EXPIRE_AUTH_SESSION_QUEUE = 'connections.expire-auth-session';
export type ExpireAuthSessionJob = { authSessionId: string };

export const AUTH_SESSION_TTL_MS = 15 * 60_000;
export const SDK_TOKEN_TTL_SECONDS = 180;
