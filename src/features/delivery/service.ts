// The delivery service, the one the rest of Tributary holds: emitting events (envelopes each feature
// builds), giving a new developer its primary webhook, holds for suspension, the scheduled
// healthcheck, resend by event id, and the destinations of every kind as the API, dashboard and CLI
// manage them (`destinations`: destination-management.ts), with `/v2/webhook`'s alias for the
// primary webhook (webhook-alias.ts) spread in.
import type { Logger } from 'pino';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { notFound } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { createDestinationManagement } from './destination-management.ts';
import type { ResolveHost, WebhookEnvironment } from './destination-policy.ts';
import * as destinations from './destination-repo.ts';
import { healthcheckEnvelope, type WebhookEnvelope } from './events.ts';
import { healthcheckFor } from './healthcheck.ts';
import type { WebhookHooks } from './hooks.ts';
import { DELIVERY_QUEUE, type DeliveryJob, writeToOutbox } from './outbox.ts';
import { countEventsByHour, eventPageOfUser } from './event-history.ts';
import { dropPendingSuppressible, reschedule } from './delivery-moves.ts';
import { createOutboxRelay } from './relay.ts';
import { ownDatabasesOf } from './own-database.ts';
import { type WebhookSettings, webhookSettings } from './settings.ts';
import { generateWebhookSecret } from './signing.ts';
import { sweepStuckEvents } from './stuck-sweeper.ts';
import type { WebhookEventStatus } from './tables.ts';
import { createWebhookAlias } from './webhook-alias.ts';

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

/** Destinations read per query when the scheduled healthcheck goes out. */
const HEALTHCHECK_PAGE = 500;
/** The outbox relay's periodic pass (emits wake it at once; this catches what a crash left). */
const RELAY_INTERVAL_MS = 1_000;

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { db, jobs, secretBox, clock, hooks } = deps;
  const settings: WebhookSettings = deps.config.settings.get(webhookSettings);
  const relay = createOutboxRelay({ db, jobs, log: deps.log }, { intervalMs: RELAY_INTERVAL_MS });
  jobs.attach(relay);

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

  const management = createDestinationManagement({
    db,
    jobs,
    secretBox,
    clock,
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
    ownDatabases: ownDatabasesOf([deps.config.databaseUrl, deps.config.databaseReadUrl]),
    emitTo: async (trx, developerId, destinationId, envelope) =>
      (
        await writeToOutbox({ jobs, hooks, now: clock.now(), relay }, trx, developerId, [envelope], {
          destinationId,
        })
      )[0]!,
    healthcheck: async (developerId) =>
      healthcheckEnvelope(await healthcheckFor(db, developerId, clock.now())),
  });

  const service = {
    settings,
    hooks,
    /** Destinations of every kind, the primary webhook included, by id (destination-management.ts). */
    destinations: management,
    /** `/v2/webhook`'s calls: the same, for the primary webhook (webhook-alias.ts). */
    ...createWebhookAlias(management),
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
        kind: destinations.WEBHOOK_KIND,
        primary: true,
        sealedSecret: secretBox.seal(secret),
      });
      return { secret };
    },

    /** The destination URL of each given developer that has one (for listings). */
    async destinationUrls(developerIds: readonly string[]): Promise<Map<string, string>> {
      const rows = await destinations.findPrimaries(db, developerIds);
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

    /**
     * The developer was suspended or resumed (in that change's transaction): a suspended
     * developer's deliveries are held, not dropped (the delivery engine holds them), until
     * `releaseHeldOnResume` runs after the resume has committed.
     */
    async holdForSuspension(trx: Db, developerId: string, suspended: boolean): Promise<void> {
      await destinations.setSuspended(trx, developerId, suspended ? clock.now() : null);
    },

    /** After a resume: the events held meanwhile go out, to every destination that can receive them. */
    releaseHeldOnResume: (developerId: string) => management.releaseHeldOnResume(developerId),

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

    /** Where given events stand, for features that show their own delivery state (lab reports). */
    async eventStates(developerId: string, eventIds: readonly string[]): Promise<Map<string, EventState>> {
      if (eventIds.length === 0) return new Map();
      const [destination, rows] = await Promise.all([
        destinations.findPrimary(db, developerId),
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

    /**
     * Resend by event id: the event goes again to every destination it was delivered to (or held,
     * failed or dropped for), each with the same event id and a fresh round of retries. Returns
     * how many deliveries were queued; 404 when the event is not the developer's.
     */
    async resend(developerId: string, eventId: string): Promise<{ eventId: string; deliveries: number }> {
      const deliveries = await db.transaction().execute(async (trx) => {
        const rows = await reschedule(trx, developerId, eventId, clock.now());
        if (rows.length === 0) throw notFound(`no webhook event "${eventId}"`);
        await jobs.sendMany(
          DELIVERY_QUEUE,
          rows.map((row) => ({ data: { events: [[row.id, row.generation]], try: 1 } satisfies DeliveryJob })),
          trx,
        );
        return rows.length;
      });
      return { eventId, deliveries };
    },
  };
  return service;
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
