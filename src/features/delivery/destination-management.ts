// Destinations as the developer manages them, by id and of every kind: a kind plus settings, and
// optionally the event types it takes. The primary webhook (one per developer, made with it, what
// `/v2/webhook` names: webhook-alias.ts) is one of them, as kind `webhook`. What differs between
// kinds is the kind's (destination-kinds.ts): it checks and shows the settings and names the
// target; a signed kind (the webhook) gets a secret of its own, shown once. What is the primary's
// alone: it exists before it has a URL (its events are held until one is set), and it cannot be
// deleted. Delivery goes through the same outbox and engine for all of them.
import type { Clock } from '../../core/clock.ts';
import { conflict, invalidParameter, notFound } from '../../core/errors.ts';
import { newUuid } from '../../core/ids.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import {
  type DeliveryFilters,
  type DeliveryPage,
  type DeliveryRecord,
  listDeliveries,
} from './deliveries.ts';
import { countFailuresSince, countHeld } from './delivery-counts.ts';
import { KIND_NAMES, settingsOfKind } from './destination-kinds.ts';
import { type ResolveHost, systemResolver, type WebhookEnvironment } from './destination-policy.ts';
import * as repo from './destination-repo.ts';
import type { WebhookEnvelope } from './events.ts';
import type { KindSettings } from './kinds/kind.ts';
import { DELIVERY_QUEUE, type DeliveryJob, firstAttemptJobs } from './outbox.ts';
import type { OwnDatabase } from './own-database.ts';
import { findEventBody } from './event-history.ts';
import { releaseHeld, reschedule } from './delivery-moves.ts';
import { previousSecretExpiry, rotateSigningSecret } from './secret-rotation.ts';
import { generateWebhookSecret } from './signing.ts';
import type { DestinationStatus } from './tables.ts';
import {
  checkEventTypes,
  checkName,
  type DestinationChanges,
  type DestinationInput,
  MAX_DESTINATIONS,
} from './destination-input.ts';

/** How a destination is doing. */
export type DestinationHealth = {
  status: DestinationStatus;
  /** Failed attempts (any non-2xx, timeout or network error) in the last 24 hours. */
  recentFailures: number;
  consecutiveFailures: number;
  failingSince: Date | null;
  disabledAt: Date | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  heldEvents: number;
};

export type DestinationView = DestinationHealth & {
  id: string;
  kind: string;
  name: string | null;
  /** The developer's primary webhook (the one `/v2/webhook` names). */
  primary: boolean;
  /** The event types it receives; null: every one. */
  eventTypes: string[] | null;
  /** The settings without their secrets. */
  settings: Record<string, unknown>;
  createdAt: Date;
  /** A signed kind's: while set (and in the future), deliveries are also signed with the replaced secret. */
  previousSecretExpiresAt: Date | null;
  /** A new webhook's signing secret: returned this once, on creation. */
  secret?: string;
};

const DAY_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Held events are released in slices so enabling a destination with a big backlog stays one short transaction each. */
const RELEASE_SLICE = 1_000;

export type DestinationManagementDeps = {
  db: Db;
  jobs: JobQueue;
  secretBox: SecretBox;
  clock: Clock;
  resolve?: ResolveHost;
  /** The service's own databases, which no destination may be (own-database.ts). */
  ownDatabases: readonly OwnDatabase[];
  /** Emits an event to one destination only (null: the primary webhook), in `trx`. */
  emitTo(
    trx: Db,
    developerId: string,
    destinationId: string | null,
    envelope: WebhookEnvelope,
  ): Promise<string>;
  healthcheck(developerId: string): Promise<WebhookEnvelope>;
};

export function createDestinationManagement(deps: DestinationManagementDeps) {
  const { db, jobs, secretBox, clock } = deps;
  const policy = (environment: WebhookEnvironment) => ({
    environment,
    resolve: deps.resolve ?? systemResolver,
    ownDatabases: deps.ownDatabases,
  });

  /** The stored settings: sealed JSON, or a signed kind's URL (its target). */
  function storedSettings(row: repo.DestinationRow): Record<string, unknown> {
    if (row.settings === null) return { url: row.url };
    return JSON.parse(secretBox.open(row.settings)) as Record<string, unknown>;
  }

  /** Settings checked by the kind, as the row keeps them. */
  async function settingsRow(kind: KindSettings, input: unknown, environment: WebhookEnvironment) {
    const settings = await kind.parse(input, policy(environment));
    return {
      ...(kind.signed ? {} : { sealedSettings: secretBox.seal(JSON.stringify(settings)) }),
      target: kind.target(settings),
    };
  }

  async function view(row: repo.DestinationRow): Promise<DestinationView> {
    const deliveriesOf = repo.deliveryKey(row);
    const now = clock.now();
    const [recentFailures, heldEvents, previousSecretExpiresAt] = await Promise.all([
      countFailuresSince(db, row.developer_id, new Date(now.getTime() - DAY_MS), deliveriesOf),
      countHeld(db, row.developer_id, deliveriesOf),
      previousSecretExpiry(db, row, now),
    ]);
    return {
      id: row.id,
      kind: row.kind,
      name: row.name,
      primary: repo.isPrimary(row),
      eventTypes: row.event_types,
      settings: settingsOfKind(row.kind).view(storedSettings(row)),
      status: row.status,
      recentFailures,
      consecutiveFailures: row.consecutive_failures,
      failingSince: row.failing_since,
      disabledAt: row.disabled_at,
      lastSuccessAt: row.last_success_at,
      lastFailureAt: row.last_failure_at,
      heldEvents,
      createdAt: row.created_at,
      previousSecretExpiresAt,
    };
  }

  async function mustFind(developerId: string, id: string): Promise<repo.DestinationRow> {
    // Ids are UUIDs: anything else names no destination (and must not reach the uuid column).
    if (!UUID.test(id)) throw notFound(`no destination "${id.slice(0, 100)}"`);
    const row = await repo.findDeveloperDestination(db, developerId, id);
    if (!row) throw notFound(`no destination "${id}"`);
    return row;
  }

  /** Moves the destination's held events back to pending and queues them; returns how many. */
  async function release(row: repo.DestinationRow): Promise<number> {
    let released = 0;
    for (;;) {
      const slice = await db.transaction().execute(async (trx) => {
        const rows = await releaseHeld(
          trx,
          row.developer_id,
          clock.now(),
          RELEASE_SLICE,
          repo.deliveryKey(row),
        );
        await jobs.sendMany(DELIVERY_QUEUE, firstAttemptJobs(rows), trx);
        return rows.length;
      });
      released += slice;
      if (slice < RELEASE_SLICE) return released;
    }
  }

  /** It can take its events now: a target set, enabled, its developer not suspended. */
  const receiving = (row: repo.DestinationRow) =>
    row.url !== null && row.status !== 'disabled' && row.suspended_at === null;

  async function update(
    developerId: string,
    id: string,
    changes: DestinationChanges,
  ): Promise<DestinationView & { replayed: number }> {
    const row = await mustFind(developerId, id);
    const name = checkName(changes.name);
    const eventTypes = checkEventTypes(changes.eventTypes);
    if (
      changes.settings === undefined &&
      changes.enabled === undefined &&
      name === undefined &&
      eventTypes === undefined
    )
      throw invalidParameter('body', 'expected name, settings, enabled and/or event_types');
    let stored: { sealedSettings?: string; target?: string } = {};
    if (changes.settings !== undefined) {
      if (
        typeof changes.settings !== 'object' ||
        changes.settings === null ||
        Array.isArray(changes.settings)
      )
        throw invalidParameter('settings', 'expected an object');
      const merged = { ...storedSettings(row), ...changes.settings };
      stored = await settingsRow(settingsOfKind(row.kind), merged, row.environment);
    }
    if (changes.enabled === true && row.url === null && stored.target === undefined)
      throw invalidParameter(
        'settings.url',
        'no webhook URL is configured yet; send one to enable the destination',
      );
    await repo.updateDestination(db, id, {
      ...stored,
      ...(name === undefined ? {} : { name }),
      ...(eventTypes === undefined ? {} : { eventTypes }),
      ...(changes.enabled === undefined ? {} : { status: changes.enabled ? 'active' : 'disabled' }),
      at: clock.now(),
    });
    const now = await mustFind(developerId, id);
    const replayed = changes.enabled === true && receiving(now) ? await release(now) : 0;
    return { ...(await view(now)), replayed };
  }

  return {
    kinds: KIND_NAMES,

    /** The developer's primary webhook's id (what `/v2/webhook` names); 404 for an unknown developer. */
    async primaryId(developerId: string): Promise<string> {
      const row = await repo.findPrimary(db, developerId);
      if (!row) throw notFound(`no developer with dev-id "${developerId}"`);
      return row.id;
    },

    async list(developerId: string): Promise<DestinationView[]> {
      const rows = await repo.listDeveloperDestinations(db, developerId);
      return Promise.all(rows.map(view));
    },

    async get(developerId: string, id: string): Promise<DestinationView> {
      return view(await mustFind(developerId, id));
    },

    /**
     * A new destination. `webhook` sets the URL of the developer's primary webhook while it has
     * none (it exists from the developer's creation), else adds a secondary webhook with a
     * signing secret of its own, returned this once.
     */
    async create(developerId: string, input: DestinationInput): Promise<DestinationView> {
      const name = checkName(input.name);
      const eventTypes = checkEventTypes(input.eventTypes) ?? null;
      const kind = settingsOfKind(input.kind);
      const primary = await repo.findPrimary(db, developerId);
      if (!primary) throw notFound(`no developer with dev-id "${developerId}"`);
      if (kind.kind === primary.kind && primary.url === null) {
        return update(developerId, primary.id, {
          settings: input.settings,
          enabled: true,
          ...(name === undefined ? {} : { name }),
          ...(eventTypes === null ? {} : { eventTypes }),
        });
      }
      const stored = await settingsRow(kind, input.settings, primary.environment);
      const secret = kind.signed ? generateWebhookSecret() : undefined;
      const id = newUuid();
      await db.transaction().execute(async (trx) => {
        // Serialised per developer on its primary webhook's row, so two creations cannot both pass the cap.
        await repo.findPrimary(trx, developerId, true);
        const existing = (await repo.eventRoutes(trx, developerId)).others;
        if (existing.length >= MAX_DESTINATIONS)
          throw conflict(
            `a developer may have at most ${MAX_DESTINATIONS} destinations besides its primary webhook`,
          );
        await repo.insertDestination(trx, {
          id,
          developerId,
          environment: primary.environment,
          kind: kind.kind,
          name: name ?? null,
          ...stored,
          sealedSecret: secret === undefined ? null : secretBox.seal(secret),
          eventTypes,
        });
        // A destination made while the developer is suspended is held like the others.
        if (primary.suspended_at) await repo.markSuspended(trx, id, primary.suspended_at);
      });
      const created = await view(await mustFind(developerId, id));
      return secret === undefined ? created : { ...created, secret };
    },

    /**
     * Changes the name, the settings (merged over the stored ones, so secrets need not be sent
     * again), the event types and/or enables or disables it. Enabling clears the failure streak
     * and sends the held events.
     */
    update,

    /**
     * Back to the state before any URL was set: events are held, nothing is attempted, so nothing
     * fails (what `tributary listen` leaves when it found none; only a webhook can be without one).
     */
    async removeUrl(developerId: string, id: string): Promise<DestinationView & { replayed: number }> {
      const row = await mustFind(developerId, id);
      if (!settingsOfKind(row.kind).signed)
        throw invalidParameter('url', 'only a webhook can be without a URL');
      await repo.updateDestination(db, id, { target: null, status: 'active', at: clock.now() });
      return { ...(await view(await mustFind(developerId, id))), replayed: 0 };
    },

    /** Deletes a destination with its delivery log; the primary webhook cannot be deleted (409). */
    async remove(developerId: string, id: string): Promise<void> {
      const row = await mustFind(developerId, id);
      if (repo.isPrimary(row))
        throw conflict('the webhook destination cannot be deleted: disable it with PATCH {"enabled": false}');
      await repo.deleteDestination(db, developerId, id);
    },

    /** A new signing secret for a webhook, returned once (secret-rotation.ts). */
    async rotateSecret(developerId: string, id: string) {
      await mustFind(developerId, id);
      return rotateSigningSecret({ db, secretBox, clock }, developerId, id);
    },

    /** A `healthcheck` event to this destination only, through the normal pipeline (signed, logged and retried). */
    async sendTest(developerId: string, id: string): Promise<{ eventId: string }> {
      const row = await mustFind(developerId, id);
      if (!row.url) throw conflict('no webhook destination configured: set its URL first');
      if (row.status === 'disabled')
        throw conflict('the destination is disabled: enable it first ({"enabled": true})');
      const envelope = await deps.healthcheck(developerId);
      return {
        eventId: await db
          .transaction()
          .execute((trx) => deps.emitTo(trx, developerId, repo.deliveryKey(row), envelope)),
      };
    },

    async deliveries(developerId: string, id: string, filters: DeliveryFilters): Promise<DeliveryPage> {
      const row = await mustFind(developerId, id);
      return listDeliveries(db, developerId, { ...filters, destinationId: repo.deliveryKey(row) });
    },

    /** One event of the destination's log with its attempts and the body it is delivered with; 404 when not there. */
    async delivery(
      developerId: string,
      id: string,
      eventId: string,
    ): Promise<{ record: DeliveryRecord; body: string }> {
      const row = await mustFind(developerId, id);
      const [page, body] = await Promise.all([
        listDeliveries(db, developerId, { eventId, limit: 1, destinationId: repo.deliveryKey(row) }),
        findEventBody(db, developerId, eventId),
      ]);
      const record = page.deliveries[0];
      if (!record || body === undefined) throw notFound(`no webhook event "${eventId}"`);
      return { record, body };
    },

    /** Sends one event of this destination's log again (same event id), with a fresh round of retries. */
    async replay(developerId: string, id: string, eventId: string): Promise<{ eventId: string }> {
      const row = await mustFind(developerId, id);
      await db.transaction().execute(async (trx) => {
        const [delivery] = await reschedule(trx, developerId, eventId, clock.now(), repo.deliveryKey(row));
        if (!delivery) throw notFound(`no event "${eventId}" for destination "${id}"`);
        await jobs.send(
          DELIVERY_QUEUE,
          { events: [[delivery.id, delivery.generation]], try: 1 } satisfies DeliveryJob,
          { trx },
        );
      });
      return { eventId };
    },

    /** After a developer's resume: each of its destinations that can receive sends its held events. */
    async releaseHeldOnResume(developerId: string): Promise<number> {
      let released = 0;
      for (const row of await repo.listDeveloperDestinations(db, developerId))
        if (receiving(row)) released += await release(row);
      return released;
    },
  };
}

export type DestinationManagement = ReturnType<typeof createDestinationManagement>;
