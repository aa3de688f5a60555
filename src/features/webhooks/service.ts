// The webhooks service: what the rest of Tributary calls to emit events, and what the API and
// CLI call to manage a developer's destination and read or replay its delivery log.
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { conflict, invalidParameter, notFound } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { type DeliveryFilters, type DeliveryPage, listDeliveries } from './deliveries.ts';
import { type ResolveHost, validateDestinationUrl } from './destination-policy.ts';
import * as destinations from './destination-repo.ts';
import { buildHealthcheckEvent, type WebhookPayload } from './events.ts';
import {
  DELIVERY_QUEUE,
  type DeliveryJob,
  type EmitItem,
  type EmitOptions,
  firstAttemptJobs,
  writeToOutbox,
} from './outbox.ts';
import { dropPendingData, releaseHeld, reschedule } from './repo.ts';
import { loadWebhookSettings, type WebhookSettings } from './settings.ts';
import { generateWebhookSecret, SECRET_ROTATION_OVERLAP_MS } from './signing.ts';
import type { DestinationStatus } from './tables.ts';

export type Destination = {
  url: string | null;
  status: DestinationStatus;
  /** Failed attempts (any non-2xx, timeout or network error) in the last 24 hours. */
  recentFailures: number;
  consecutiveFailures: number;
  failingSince: Date | null;
  disabledAt: Date | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  heldEvents: number;
  /** While set (and in the future), deliveries are also signed with the previous secret. */
  previousSecretExpiresAt: Date | null;
};

export type WebhooksServiceDeps = {
  db: Db;
  jobs: JobQueue;
  secretBox: SecretBox;
  clock: Clock;
  log: Logger;
  config: Config;
  /** DNS for destination checks; tests inject one to simulate what a name resolves to. */
  resolve?: ResolveHost;
};

const DAY_MS = 24 * 60 * 60 * 1000;
/** Held events are released in slices so re-enabling a destination with a big backlog stays one short transaction each. */
const RELEASE_SLICE = 1_000;

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { db, jobs, secretBox, clock } = deps;
  const settings: WebhookSettings = loadWebhookSettings(deps.config.env);

  async function mustFindDestination(developerId: string) {
    const row = await destinations.findDestination(db, developerId);
    if (!row) throw notFound(`no developer with dev-id "${developerId}"`);
    return row;
  }

  async function getDestination(developerId: string): Promise<Destination> {
    const row = await mustFindDestination(developerId);
    const now = clock.now();
    const [recentFailures, heldEvents] = await Promise.all([
      destinations.countFailuresSince(db, developerId, new Date(now.getTime() - DAY_MS)),
      destinations.countHeld(db, developerId),
    ]);
    const expires = row.webhook_secret_rotated_at
      ? new Date(row.webhook_secret_rotated_at.getTime() + SECRET_ROTATION_OVERLAP_MS)
      : null;
    return {
      url: row.webhook_url,
      status: row.webhook_status,
      recentFailures,
      consecutiveFailures: row.webhook_consecutive_failures,
      failingSince: row.webhook_failing_since,
      disabledAt: row.webhook_disabled_at,
      lastSuccessAt: row.webhook_last_success_at,
      lastFailureAt: row.webhook_last_failure_at,
      heldEvents,
      previousSecretExpiresAt: expires && expires > now ? expires : null,
    };
  }

  /** Moves every held event of a developer back to pending and enqueues it; returns how many. */
  async function releaseHeldEvents(developerId: string): Promise<number> {
    let released = 0;
    for (;;) {
      const slice = await db.transaction().execute(async (trx) => {
        const rows = await releaseHeld(trx, developerId, clock.now(), RELEASE_SLICE);
        await jobs.sendMany(DELIVERY_QUEUE, firstAttemptJobs(rows), trx);
        return rows.length;
      });
      released += slice;
      if (slice < RELEASE_SLICE) return released;
    }
  }

  /**
   * Stores the event and enqueues its delivery inside `trx`, so it exists exactly when the change
   * that caused it commits. Returns the event id (the `webhook-id` header). An oversized or
   * long-range data event is split into announced chunks; the id returned is the first one.
   */
  async function emit(
    trx: Db,
    developerId: string,
    event: WebhookPayload,
    options?: EmitOptions,
  ): Promise<string> {
    const ids = await writeToOutbox({ jobs, settings, now: clock.now() }, trx, developerId, [
      options ? { event, options } : { event },
    ]);
    return ids[0]!;
  }

  return {
    settings,

    emit,

    /** `emit` for many events in one round trip; returns every stored event id in order. */
    async emitMany(trx: Db, developerId: string, items: readonly EmitItem[]): Promise<string[]> {
      return writeToOutbox({ jobs, settings, now: clock.now() }, trx, developerId, items);
    },

    /** Called on deauthentication (in its transaction): data not yet sent to the user's developer is dropped. */
    async dropPendingForUser(trx: Db, userId: string): Promise<number> {
      return dropPendingData(trx, userId, 'user deauthenticated', clock.now());
    },

    getDestination,

    /**
     * Sets the URL and/or enables or disables the destination. Enabling (which setting a URL
     * implies unless `enabled: false`) clears the failure streak and replays held events.
     */
    async setDestination(
      developerId: string,
      input: { url?: string; enabled?: boolean },
    ): Promise<Destination & { replayed: number }> {
      const row = await mustFindDestination(developerId);
      if (input.url === undefined && input.enabled === undefined)
        throw invalidParameter('body', 'expected url and/or enabled');
      if (input.url !== undefined) {
        const check = await validateDestinationUrl(input.url, row.environment, deps.resolve);
        if (!check.allowed) throw invalidParameter('url', check.reason);
      }
      const enabled = input.enabled ?? true;
      if (enabled && input.url === undefined && !row.webhook_url) {
        throw invalidParameter('url', 'no webhook URL is configured yet; send one to enable the destination');
      }
      await destinations.updateDestination(db, developerId, {
        ...(input.url === undefined ? {} : { url: input.url }),
        status: enabled ? 'active' : 'disabled',
        at: clock.now(),
      });
      const replayed = enabled ? await releaseHeldEvents(developerId) : 0;
      return { ...(await getDestination(developerId)), replayed };
    },

    /** A new current secret, returned once; the previous one keeps signing alongside it for 24 h. */
    async rotateSecret(developerId: string): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
      await mustFindDestination(developerId);
      const secret = generateWebhookSecret();
      const now = clock.now();
      await destinations.rotateSecret(db, developerId, secretBox.seal(secret), now);
      return { secret, previousSecretExpiresAt: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS) };
    },

    /** Sends a `healthcheck` event now (through the normal pipeline, so it is signed, logged and retried). */
    async sendTest(developerId: string): Promise<{ eventId: string }> {
      const row = await mustFindDestination(developerId);
      if (!row.webhook_url) throw conflict('no webhook destination configured: set one with PUT /v2/webhook');
      if (row.webhook_status === 'disabled') {
        throw conflict(
          'the webhook destination is disabled: re-enable it with PUT /v2/webhook {"enabled": true}',
        );
      }
      const now = clock.now();
      const counts = await destinations.attemptsPerHour(db, developerId, now);
      const trend =
        counts.previous === 0
          ? 0
          : Math.round(((counts.last - counts.previous) / counts.previous) * 10_000) / 100;
      const event = buildHealthcheckEvent({
        createdAt: now,
        trendPercentage: trend,
        sentWebhooksLastHour: counts.last,
      });
      const eventId = await db.transaction().execute((trx) => emit(trx, developerId, event));
      return { eventId };
    },

    async listDeliveries(developerId: string, filters: DeliveryFilters): Promise<DeliveryPage> {
      return listDeliveries(db, developerId, filters);
    },

    /** Sends an event again with the same webhook-id, starting a fresh round of the retry schedule. */
    async replay(developerId: string, eventId: string): Promise<{ eventId: string }> {
      await db.transaction().execute(async (trx) => {
        const row = await reschedule(trx, developerId, eventId, clock.now());
        if (!row) throw notFound(`no webhook event "${eventId}"`);
        await jobs.send(
          DELIVERY_QUEUE,
          { events: [[row.id, row.generation]], try: 1 } satisfies DeliveryJob,
          { trx },
        );
      });
      return { eventId };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
