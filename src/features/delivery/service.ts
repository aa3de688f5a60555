// The webhooks service: what the rest of Tributary calls to emit events (envelopes each feature
// builds), what developer creation calls to give a developer its destination, and what the API
// and CLI call to manage that destination and read or replay its delivery log.
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { AppError, conflict, invalidParameter, notFound } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import {
  type DeliveryFilters,
  type DeliveryPage,
  type DeliveryRecord,
  listDeliveries,
} from './deliveries.ts';
import { type ResolveHost, validateDestinationUrl, type WebhookEnvironment } from './destination-policy.ts';
import * as destinations from './destination-repo.ts';
import { healthcheckEnvelope, type WebhookEnvelope } from './events.ts';
import { healthcheckFor } from './healthcheck.ts';
import type { WebhookHooks } from './hooks.ts';
import { DELIVERY_QUEUE, type DeliveryJob, firstAttemptJobs, writeToOutbox } from './outbox.ts';
import {
  countEventsByHour,
  dropPendingSuppressible,
  eventPageOfUser,
  findEventBody,
  releaseHeld,
  reschedule,
} from './repo.ts';
import { createOutboxRelay } from './relay.ts';
import { createDestinationsService, type DestinationHealth } from './destinations-service.ts';
import { ownDatabasesOf } from './own-database.ts';
import { type WebhookSettings, webhookSettings } from './settings.ts';
import { generateWebhookSecret, MAX_RETIRED_SECRETS, SECRET_ROTATION_OVERLAP_MS } from './signing.ts';
import { sweepStuckEvents } from './stuck-sweeper.ts';
import type { WebhookEventStatus } from './tables.ts';

export type Destination = DestinationHealth & {
  url: string | null;
  /** While set (and in the future), deliveries are also signed with the previous secret. */
  previousSecretExpiresAt: Date | null;
};

export type EventState = {
  destinationId: string | null;
  status: WebhookEventStatus;
  attempts: number;
  lastError: string | null;
  deliveredAt: Date | null;
};

export type WebhooksServiceDeps = {
  db: Db;
  jobs: JobQueue;
  secretBox: SecretBox;
  clock: Clock;
  log: Logger;
  config: Config;
  /** What the features owning events' users decide and learn (see hooks.ts); the delivery engine gets them too. */
  hooks: WebhookHooks;
  /** DNS for destination checks; tests inject one to simulate what a name resolves to. */
  resolve?: ResolveHost;
};

const DAY_MS = 24 * 60 * 60 * 1000;
/** Held events are released in slices so re-enabling a destination with a big backlog stays one short transaction each. */
const RELEASE_SLICE = 1_000;
/** Destinations read per query when the scheduled healthcheck goes out. */
const HEALTHCHECK_PAGE = 500;
/** The outbox relay's periodic pass (emits wake it at once; this catches what a crash left). */
const RELAY_INTERVAL_MS = 1_000;

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { db, jobs, secretBox, clock, hooks } = deps;
  const settings: WebhookSettings = deps.config.settings.get(webhookSettings);
  const relay = createOutboxRelay({ db, jobs, log: deps.log }, { intervalMs: RELAY_INTERVAL_MS });
  jobs.attach(relay);

  async function mustFindDestination(developerId: string) {
    const row = await destinations.findDestination(db, developerId);
    if (!row) throw notFound(`no developer with dev-id "${developerId}"`);
    return row;
  }

  async function getDestination(developerId: string): Promise<Destination> {
    const row = await mustFindDestination(developerId);
    const now = clock.now();
    const [recentFailures, heldEvents, retired] = await Promise.all([
      destinations.countFailuresSince(db, developerId, new Date(now.getTime() - DAY_MS)),
      destinations.countHeld(db, developerId),
      destinations.retiredSecrets(db, [row.id], now),
    ]);
    // The most recently replaced secret is the one a receiver still switching over relies on.
    const expires = retired.get(row.id)?.[0]?.signsUntil ?? null;
    return {
      url: row.url,
      status: row.status,
      recentFailures,
      consecutiveFailures: row.consecutive_failures,
      failingSince: row.failing_since,
      disabledAt: row.disabled_at,
      lastSuccessAt: row.last_success_at,
      lastFailureAt: row.last_failure_at,
      heldEvents,
      previousSecretExpiresAt: expires,
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

  /** Updated below, once `setDestination` exists (the destinations service sets webhook URLs through it). */
  let setWebhookDestination: (
    developerId: string,
    input: { url?: string; enabled?: boolean },
  ) => Promise<unknown> = async () => undefined;
  const destinationsService = createDestinationsService({
    db,
    jobs,
    secretBox,
    clock,
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
    ownDatabases: ownDatabasesOf([deps.config.databaseUrl, deps.config.databaseReadUrl]),
    webhook: { setDestination: (developerId, input) => setWebhookDestination(developerId, input) },
    emitTo: async (trx, developerId, destinationId, envelope) => {
      const ids = await writeToOutbox(
        { jobs, hooks, now: clock.now(), relay },
        trx,
        developerId,
        [envelope],
        { destinationId },
      );
      return ids[0]!;
    },
    healthcheck: async (developerId) =>
      healthcheckEnvelope(await healthcheckFor(db, developerId, clock.now())),
  });

  /** `emit` for many events in one round trip; returns every stored event id in order. */
  async function emitMany(trx: Db, developerId: string, envelopes: readonly WebhookEnvelope[]) {
    return writeToOutbox({ jobs, hooks, now: clock.now(), relay }, trx, developerId, envelopes);
  }

  /**
   * Stores the event and enqueues its delivery inside `trx`, so it exists exactly when the change
   * that caused it commits. Returns the event id (the `webhook-id` header).
   */
  async function emit(trx: Db, developerId: string, envelope: WebhookEnvelope): Promise<string> {
    const ids = await emitMany(trx, developerId, [envelope]);
    return ids[0]!;
  }

  const service = {
    settings,
    hooks,
    /** Destinations of every kind (`/v2/destinations`, destinations-service.ts). */
    destinations: destinationsService,
    /** Queues the first attempts of events emitted a few at a time (see relay.ts). */
    relay,

    emit,
    emitMany,

    /**
     * Gives a new developer its destination, in the developer's creation transaction: no URL yet
     * (events are held until one is set) and a fresh signing secret, returned this once.
     */
    async createDestinationFor(
      trx: Db,
      developer: { id: string; environment: WebhookEnvironment },
    ): Promise<{ secret: string }> {
      const secret = generateWebhookSecret();
      await destinations.insertDestination(trx, {
        developerId: developer.id,
        environment: developer.environment,
        sealedSecret: secretBox.seal(secret),
      });
      return { secret };
    },

    /** The destination URL of each given developer that has one (for listings). */
    async destinationUrls(developerIds: readonly string[]): Promise<Map<string, string>> {
      const rows = await destinations.findDestinations(db, developerIds);
      return new Map([...rows].flatMap(([developerId, row]) => (row.url ? [[developerId, row.url]] : [])));
    },

    /** Called on deauthentication (in its transaction): suppressible events not yet sent for the user are dropped. */
    async dropPendingForUser(trx: Db, userId: string): Promise<number> {
      return dropPendingSuppressible(trx, userId, 'user deauthenticated', clock.now());
    },

    /** One page of the events about one user, in the order they were written (a data-subject export). */
    eventPageOfUser(developerId: string, userId: string, afterSeq: number, limit: number) {
      return eventPageOfUser(db, developerId, userId, afterSeq, limit);
    },

    getDestination,

    /**
     * Sets the URL and/or enables or disables the destination. Enabling (which setting a URL
     * implies unless `enabled: false`) clears the failure streak and replays held events.
     */
    async setDestination(
      developerId: string,
      input: { url?: string | null; enabled?: boolean },
    ): Promise<Destination & { replayed: number }> {
      const row = await mustFindDestination(developerId);
      if (input.url === undefined && input.enabled === undefined)
        throw invalidParameter('body', 'expected url and/or enabled');
      if (input.url === null) {
        // Back to the state before any URL was set (what `tributary listen` leaves when it found
        // none): events are held, nothing is attempted, so nothing fails.
        if (input.enabled !== undefined)
          throw invalidParameter('enabled', 'not with url null: a webhook without a URL holds its events');
        await destinations.updateDestination(db, developerId, {
          url: null,
          status: 'active',
          at: clock.now(),
        });
        return { ...(await getDestination(developerId)), replayed: 0 };
      }
      if (input.url !== undefined) {
        const check = await validateDestinationUrl(input.url, row.environment, deps.resolve);
        if (!check.allowed) throw invalidParameter('url', check.reason);
      }
      const enabled = input.enabled ?? true;
      if (enabled && input.url === undefined && !row.url) {
        throw invalidParameter('url', 'no webhook URL is configured yet; send one to enable the destination');
      }
      await destinations.updateDestination(db, developerId, {
        ...(input.url === undefined ? {} : { url: input.url }),
        status: enabled ? 'active' : 'disabled',
        at: clock.now(),
      });
      // A suspended developer's events stay held until the developer is resumed.
      const replayed = enabled && !row.suspended_at ? await releaseHeldEvents(developerId) : 0;
      return { ...(await getDestination(developerId)), replayed };
    },

    /**
     * A new current secret, returned once; the one it replaces keeps signing alongside it for 24 h,
     * as does every secret replaced before within its own 24 h. Rotations of one destination are
     * serialised on its row, so concurrent calls each replace the secret the previous call made
     * (and each secret handed out signs). Past MAX_RETIRED_SECRETS secrets still in their overlap,
     * a rotation is refused (429) until the oldest expires, rather than cut an overlap short.
     */
    async rotateSecret(developerId: string): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
      return db.transaction().execute(async (trx) => {
        const row = await destinations.lockDestination(trx, developerId);
        if (!row) throw notFound(`no developer with dev-id "${developerId}"`);
        const now = clock.now();
        const signing = (await destinations.retiredSecrets(trx, [row.id], now)).get(row.id) ?? [];
        const oldest = signing[signing.length - 1];
        if (oldest && signing.length >= MAX_RETIRED_SECRETS) {
          const wait = Math.max(1, Math.ceil((oldest.signsUntil.getTime() - now.getTime()) / 1000));
          throw new AppError(
            'rate_limited',
            `${signing.length} replaced secrets still sign deliveries within their 24 h overlap, the most ` +
              `allowed; the oldest stops at ${oldest.signsUntil.toISOString()}, rotate again after that`,
            { headers: { 'Retry-After': String(wait) } },
          );
        }
        const secret = generateWebhookSecret();
        const signsUntil = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS);
        await destinations.rotateSecret(trx, row, secretBox.seal(secret), now, signsUntil);
        return { secret, previousSecretExpiresAt: signsUntil };
      });
    },

    /**
     * The developer was suspended or resumed (in that change's transaction): a suspended
     * developer's deliveries are held, not dropped (the delivery engine holds them), until
     * `releaseHeldOnResume` runs after the resume has committed.
     */
    async holdForSuspension(trx: Db, developerId: string, suspended: boolean): Promise<void> {
      await destinations.setSuspended(trx, developerId, suspended ? clock.now() : null);
    },

    /** After a resume: the events held meanwhile go out, to every destination that can receive them. */
    async releaseHeldOnResume(developerId: string): Promise<number> {
      const others = await destinationsService.releaseOthers(developerId);
      const row = await destinations.findDestination(db, developerId);
      if (!row || row.suspended_at || !row.url || row.status === 'disabled') return others;
      return others + (await releaseHeldEvents(developerId));
    },

    /** Sends a `healthcheck` event now (through the normal pipeline, so it is signed, logged and retried). */
    async sendTest(developerId: string): Promise<{ eventId: string }> {
      const row = await mustFindDestination(developerId);
      if (!row.url) throw conflict('no webhook destination configured: set one with PUT /v2/webhook');
      if (row.status === 'disabled') {
        throw conflict(
          'the webhook destination is disabled: re-enable it with PUT /v2/webhook {"enabled": true}',
        );
      }
      const event = await healthcheckFor(db, developerId, clock.now());
      const eventId = await db
        .transaction()
        .execute((trx) => emit(trx, developerId, healthcheckEnvelope(event)));
      return { eventId };
    },

    /**
     * The scheduled `healthcheck`: one event to every destination that can receive it. The figures
     * are read first; the events are then written in one transaction, so a pass the queue retries
     * after a failure never sends a developer two.
     */
    async sendScheduledHealthchecks(): Promise<number> {
      const now = clock.now();
      const events: { developerId: string; envelope: WebhookEnvelope }[] = [];
      for (let after: string | null = null; ;) {
        const page = await destinations.receivingDevelopers(db, after, HEALTHCHECK_PAGE);
        for (const developerId of page) {
          events.push({
            developerId,
            envelope: healthcheckEnvelope(await healthcheckFor(db, developerId, now)),
          });
        }
        if (page.length < HEALTHCHECK_PAGE) break;
        after = page[page.length - 1] ?? null;
      }
      if (events.length === 0) return 0;
      await db.transaction().execute(async (trx) => {
        for (const { developerId, envelope } of events) await emit(trx, developerId, envelope);
      });
      return events.length;
    },

    /** Queues again the pending events whose job was lost (see stuck-sweeper.ts); returns how many. */
    sweepStuckEvents: () => sweepStuckEvents({ db, jobs, clock }, settings.stuckAfterMs),

    /** Events of the last hours by hour and status, for the dashboard's overview. */
    countEventsByHour: (developerId: string, since: Date) => countEventsByHour(db, developerId, since),

    /** One event of the log with its attempts and the body it is delivered with; 404 when not the developer's. */
    async delivery(developerId: string, eventId: string): Promise<{ record: DeliveryRecord; body: string }> {
      const [page, body] = await Promise.all([
        listDeliveries(db, developerId, { eventId, limit: 1 }),
        findEventBody(db, developerId, eventId),
      ]);
      const record = page.deliveries[0];
      if (!record || body === undefined) throw notFound(`no webhook event "${eventId}"`);
      return { record, body };
    },

    /** Where given events stand, for features that show their own delivery state (lab reports). */
    async eventStates(developerId: string, eventIds: readonly string[]): Promise<Map<string, EventState>> {
      if (eventIds.length === 0) return new Map();
      const [destination, rows] = await Promise.all([
        destinations.findDestination(db, developerId),
        db
          .selectFrom('deliveries')
          .select(['event_id as id', 'status', 'attempts', 'last_error', 'delivered_at'])
          .where('developer_id', '=', developerId)
          .where('destination_id', 'is', null)
          .where('event_id', 'in', [...eventIds])
          .execute(),
      ]);
      return new Map(
        rows.map((row) => [
          row.id,
          {
            destinationId: destination?.id ?? null,
            status: row.status,
            attempts: row.attempts,
            lastError: row.last_error,
            deliveredAt: row.delivered_at,
          },
        ]),
      );
    },

    async listDeliveries(developerId: string, filters: DeliveryFilters): Promise<DeliveryPage> {
      return listDeliveries(db, developerId, filters);
    },

    /**
     * Sends an event again to the primary webhook with the same webhook-id, starting a fresh round
     * of the retry schedule.
     */
    async replay(developerId: string, eventId: string): Promise<{ eventId: string }> {
      await resend(developerId, eventId, null);
      return { eventId };
    },

    /**
     * Resend by event id: the event goes again to every destination it was delivered to (or held,
     * failed or dropped for), each with the same event id and a fresh round of retries. Returns
     * how many deliveries were queued; 404 when the event is not the developer's.
     */
    async resend(developerId: string, eventId: string): Promise<{ eventId: string; deliveries: number }> {
      return { eventId, deliveries: await resend(developerId, eventId, undefined) };
    },
  };

  async function resend(developerId: string, eventId: string, destinationId: null | undefined) {
    return db.transaction().execute(async (trx) => {
      const rows = await reschedule(trx, developerId, eventId, clock.now(), destinationId);
      if (rows.length === 0) throw notFound(`no webhook event "${eventId}"`);
      await jobs.sendMany(
        DELIVERY_QUEUE,
        rows.map((row) => ({ data: { events: [[row.id, row.generation]], try: 1 } satisfies DeliveryJob })),
        trx,
      );
      return rows.length;
    });
  }
  setWebhookDestination = service.setDestination;
  return service;
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
