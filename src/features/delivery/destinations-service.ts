// Destinations as the management API (`/v2/destinations`) sees them: a kind plus settings, and
// optionally the event types it takes. The primary webhook (one per developer, also managed by
// `/v2/webhook`, its alias) shows up here as the `webhook` kind; secondary webhooks and every
// other kind are created, changed, tested and deleted here, other kinds' settings checked by
// their adapter (destination-kinds.ts) and stored sealed. Secrets are never returned (a
// secondary webhook's signing secret once, on creation): a kind's `view` leaves them out.
// Delivery goes through the same outbox and engine.
import type { Clock } from '../../core/clock.ts';
import { conflict, invalidParameter, notFound } from '../../core/errors.ts';
import { newUuid } from '../../core/ids.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { type DeliveryFilters, type DeliveryPage, listDeliveries } from './deliveries.ts';
import { kindOf, KIND_NAMES } from './destination-kinds.ts';
import {
  type ResolveHost,
  systemResolver,
  validateDestinationUrl,
  type WebhookEnvironment,
} from './destination-policy.ts';
import * as repo from './destination-repo.ts';
import type { WebhookEnvelope } from './events.ts';
import { DELIVERY_QUEUE, type DeliveryJob, firstAttemptJobs } from './outbox.ts';
import type { OwnDatabase } from './own-database.ts';
import { releaseHeld, reschedule } from './repo.ts';
import { checkWebhookSettings } from './kinds/webhook.ts';
import { generateWebhookSecret } from './signing.ts';
import type { DestinationStatus } from './tables.ts';

/** How a destination is doing: what the webhook alias and the destination list both show. */
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
  /** A new secondary webhook's signing secret: returned this once, on creation. */
  secret?: string;
};

export type DestinationInput = {
  kind: string;
  name?: string | null;
  settings: unknown;
  eventTypes?: readonly string[] | null;
};
export type DestinationChanges = {
  name?: string | null;
  settings?: unknown;
  enabled?: boolean;
  eventTypes?: readonly string[] | null;
};

const DAY_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RELEASE_SLICE = 1_000;
const MAX_NAME = 200;
/** Destinations a developer may have besides its primary webhook (secondary webhooks count). */
export const MAX_DESTINATIONS = 10;
const EVENT_TYPE = /^[a-z][a-z0-9_.]{0,63}$/;
const MAX_EVENT_TYPES = 50;

/** An `event_types` filter checked: distinct event type names, at least one (null: every type). */
export function checkEventTypes(types: readonly string[] | null | undefined): string[] | null | undefined {
  if (types === undefined || types === null) return types;
  if (types.length === 0 || types.length > MAX_EVENT_TYPES)
    throw invalidParameter(
      'event_types',
      `expected 1 to ${MAX_EVENT_TYPES} event types, or null for every type`,
    );
  for (const [index, type] of types.entries()) {
    if (typeof type !== 'string' || !EVENT_TYPE.test(type))
      throw invalidParameter(
        `event_types.${index}`,
        'expected an event type such as "sleep" or "lab_report.completed"',
      );
  }
  if (new Set(types).size !== types.length) throw invalidParameter('event_types', 'lists a type twice');
  return [...types];
}

export function createDestinationsService(deps: {
  db: Db;
  jobs: JobQueue;
  secretBox: SecretBox;
  clock: Clock;
  resolve?: ResolveHost;
  /** The service's own databases, which no destination may be (own-database.ts). */
  ownDatabases: readonly OwnDatabase[];
  /** The webhook's own management (service.ts): its URL and enabling go through it. */
  webhook: {
    setDestination(developerId: string, input: { url?: string; enabled?: boolean }): Promise<unknown>;
  };
  /** Emits an event to one destination only (null: the webhook), in `trx`. */
  emitTo(
    trx: Db,
    developerId: string,
    destinationId: string | null,
    envelope: WebhookEnvelope,
  ): Promise<string>;
  healthcheck(developerId: string): Promise<WebhookEnvelope>;
}) {
  const { db, jobs, secretBox, clock } = deps;
  const policy = (environment: WebhookEnvironment) => ({
    environment,
    resolve: deps.resolve ?? systemResolver,
    ownDatabases: deps.ownDatabases,
  });

  function checkName(name: string | null | undefined): string | null | undefined {
    if (name === undefined || name === null) return name;
    if (name.length === 0 || name.length > MAX_NAME)
      throw invalidParameter('name', `expected 1 to ${MAX_NAME} characters`);
    return name;
  }

  async function view(row: repo.DestinationRow): Promise<DestinationView> {
    const destinationId = repo.isPrimary(row) ? null : row.id;
    const now = clock.now();
    const [recentFailures, heldEvents] = await Promise.all([
      repo.countFailuresSince(db, row.developer_id, new Date(now.getTime() - DAY_MS), destinationId),
      repo.countHeld(db, row.developer_id, destinationId),
    ]);
    const settings =
      row.kind === repo.WEBHOOK_KIND
        ? { url: row.url }
        : kindOf(row.kind).view(JSON.parse(secretBox.open(row.settings ?? '')) as Record<string, unknown>);
    return {
      id: row.id,
      kind: row.kind,
      name: row.name,
      primary: repo.isPrimary(row),
      eventTypes: row.event_types,
      settings,
      status: row.status,
      recentFailures,
      consecutiveFailures: row.consecutive_failures,
      failingSince: row.failing_since,
      disabledAt: row.disabled_at,
      lastSuccessAt: row.last_success_at,
      lastFailureAt: row.last_failure_at,
      heldEvents,
      createdAt: row.created_at,
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
  async function release(developerId: string, destinationId: string | null): Promise<number> {
    let released = 0;
    for (;;) {
      const slice = await db.transaction().execute(async (trx) => {
        const rows = await releaseHeld(trx, developerId, clock.now(), RELEASE_SLICE, destinationId);
        await jobs.sendMany(DELIVERY_QUEUE, firstAttemptJobs(rows), trx);
        return rows.length;
      });
      released += slice;
      if (slice < RELEASE_SLICE) return released;
    }
  }

  function webhookUrl(settings: unknown): string | undefined {
    if (settings === undefined) return undefined;
    return checkWebhookSettings(settings).url as string | undefined;
  }

  return {
    kinds: KIND_NAMES,

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
      const webhook = await repo.findDestination(db, developerId);
      if (!webhook) throw notFound(`no developer with dev-id "${developerId}"`);
      if (input.kind === repo.WEBHOOK_KIND && !webhook.url) {
        const url = webhookUrl(input.settings);
        if (url === undefined) throw invalidParameter('settings.url', 'required');
        await deps.webhook.setDestination(developerId, { url });
        if (name !== undefined) await repo.renameDestination(db, webhook.id, name);
        if (eventTypes !== null) await repo.setEventTypes(db, webhook.id, eventTypes);
        return view(await mustFind(developerId, webhook.id));
      }
      let sealedSettings: string | null = null;
      let sealedSecret: string | undefined;
      let secret: string | undefined;
      let target: string;
      if (input.kind === repo.WEBHOOK_KIND) {
        const url = webhookUrl(input.settings);
        if (url === undefined) throw invalidParameter('settings.url', 'required');
        const check = await validateDestinationUrl(url, webhook.environment, deps.resolve);
        if (!check.allowed) throw invalidParameter('settings.url', check.reason);
        secret = generateWebhookSecret();
        sealedSecret = secretBox.seal(secret);
        target = url;
      } else {
        const kind = kindOf(input.kind);
        const settings = await kind.parse(input.settings, policy(webhook.environment));
        sealedSettings = secretBox.seal(JSON.stringify(settings));
        target = kind.target(settings);
      }
      const id = newUuid();
      await db.transaction().execute(async (trx) => {
        // Serialised per developer on its webhook row, so two creations cannot both pass the cap.
        await repo.lockDestination(trx, developerId);
        const existing = await repo.otherDestinationIds(trx, developerId);
        if (existing.length >= MAX_DESTINATIONS)
          throw conflict(
            `a developer may have at most ${MAX_DESTINATIONS} destinations besides its primary webhook`,
          );
        await repo.insertOtherDestination(trx, {
          id,
          developerId,
          environment: webhook.environment,
          kind: input.kind,
          name: name ?? null,
          sealedSettings,
          ...(sealedSecret === undefined ? {} : { sealedSecret }),
          target,
          eventTypes,
        });
        // A destination made while the developer is suspended is held like the others.
        if (webhook.suspended_at) await repo.markSuspended(trx, id, webhook.suspended_at);
      });
      const created = await view(await mustFind(developerId, id));
      return secret === undefined ? created : { ...created, secret };
    },

    /**
     * Changes the name, the settings (merged over the stored ones, so secrets need not be sent
     * again) and/or enables or disables it. Enabling clears the failure streak and sends the held
     * events.
     */
    async update(
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
      if (repo.isPrimary(row)) {
        const url = webhookUrl(changes.settings);
        if (url !== undefined || changes.enabled !== undefined)
          await deps.webhook.setDestination(developerId, {
            ...(url === undefined ? {} : { url }),
            ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
          });
        if (name !== undefined) await repo.renameDestination(db, id, name);
        if (eventTypes !== undefined) await repo.setEventTypes(db, id, eventTypes);
        return { ...(await view(await mustFind(developerId, id))), replayed: 0 };
      }
      let sealed: string | undefined;
      let target: string | undefined;
      if (row.kind === repo.WEBHOOK_KIND) {
        const url = webhookUrl(changes.settings);
        if (url !== undefined) {
          const check = await validateDestinationUrl(url, row.environment, deps.resolve);
          if (!check.allowed) throw invalidParameter('settings.url', check.reason);
          target = url;
        }
      } else if (changes.settings !== undefined) {
        const kind = kindOf(row.kind);
        if (
          typeof changes.settings !== 'object' ||
          changes.settings === null ||
          Array.isArray(changes.settings)
        )
          throw invalidParameter('settings', 'expected an object');
        const current = JSON.parse(secretBox.open(row.settings ?? '')) as Record<string, unknown>;
        const settings = await kind.parse({ ...current, ...changes.settings }, policy(row.environment));
        sealed = secretBox.seal(JSON.stringify(settings));
        target = kind.target(settings);
      }
      await repo.updateOtherDestination(db, id, {
        ...(sealed === undefined ? {} : { sealedSettings: sealed }),
        ...(target === undefined ? {} : { target }),
        ...(name === undefined ? {} : { name }),
        ...(eventTypes === undefined ? {} : { eventTypes }),
        ...(changes.enabled === undefined ? {} : { status: changes.enabled ? 'active' : 'disabled' }),
        at: clock.now(),
      });
      const replayed = changes.enabled === true && !row.suspended_at ? await release(developerId, id) : 0;
      return { ...(await view(await mustFind(developerId, id))), replayed };
    },

    /** Deletes a destination with its delivery log; the primary webhook cannot be deleted (409). */
    async remove(developerId: string, id: string): Promise<void> {
      const row = await mustFind(developerId, id);
      if (repo.isPrimary(row))
        throw conflict('the webhook destination cannot be deleted: disable it with PATCH {"enabled": false}');
      await repo.deleteOtherDestination(db, developerId, id);
    },

    /** A `healthcheck` event to this destination only, through the normal pipeline. */
    async sendTest(developerId: string, id: string): Promise<{ eventId: string }> {
      const row = await mustFind(developerId, id);
      if (!row.url) throw conflict('no webhook destination configured: set its URL first');
      if (row.status === 'disabled')
        throw conflict(
          `the destination is disabled: enable it with PATCH /v2/destinations/${id} {"enabled": true}`,
        );
      const envelope = await deps.healthcheck(developerId);
      const to = repo.isPrimary(row) ? null : id;
      return {
        eventId: await db.transaction().execute((trx) => deps.emitTo(trx, developerId, to, envelope)),
      };
    },

    async deliveries(developerId: string, id: string, filters: DeliveryFilters): Promise<DeliveryPage> {
      const row = await mustFind(developerId, id);
      return listDeliveries(db, developerId, {
        ...filters,
        destinationId: repo.isPrimary(row) ? null : id,
      });
    },

    /** Sends one event of this destination's log again (same event id), with a fresh round of retries. */
    async replay(developerId: string, id: string, eventId: string): Promise<{ eventId: string }> {
      const row = await mustFind(developerId, id);
      await db.transaction().execute(async (trx) => {
        const found = await reschedule(
          trx,
          developerId,
          eventId,
          clock.now(),
          repo.isPrimary(row) ? null : id,
        );
        const [delivery] = found;
        if (!delivery) throw notFound(`no event "${eventId}" for destination "${id}"`);
        await jobs.send(
          DELIVERY_QUEUE,
          { events: [[delivery.id, delivery.generation]], try: 1 } satisfies DeliveryJob,
          { trx },
        );
      });
      return { eventId };
    },

    /** After a developer's resume: each of its other destinations that can receive sends its held events. */
    async releaseOthers(developerId: string): Promise<number> {
      const rows = await repo.listDeveloperDestinations(db, developerId);
      let released = 0;
      for (const row of rows) {
        if (repo.isPrimary(row) || row.suspended_at || row.status === 'disabled') continue;
        released += await release(developerId, row.id);
      }
      return released;
    },
  };
}

export type DestinationsService = ReturnType<typeof createDestinationsService>;
