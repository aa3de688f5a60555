// `/v2/destinations`: destinations of every kind (the webhook, the developer's PostgreSQL, S3
// object storage, a NATS JetStream stream). Thin: parse, call the destinations service
// (features/delivery/destinations-service.ts), shape the reply. docs/destinations.md.
import Type from 'typebox';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { toWireDelivery } from '../../features/delivery/deliveries.ts';
import {
  CreateDestinationBody,
  CreateDestinationDoc,
  DestinationBody,
  DestinationDeliveries,
  DestinationEventParams,
  DestinationList,
  DestinationParams,
  DestinationQueued,
  PatchDestinationBody,
  PatchDestinationResponse,
} from '../../features/delivery/destination-schemas.ts';
import { type DestinationView, MAX_DESTINATIONS } from '../../features/delivery/destinations-service.ts';
import { DeliveriesQuery } from '../../features/delivery/schemas.ts';
import { wireDateTime } from '../../model/time.ts';

const tags = ['destinations'];
const config = { auth: 'developer' as const };
const Nothing = Type.Null({ description: 'No body' });

const wire = (at: Date | null) => (at ? wireDateTime(at) : null);

function destinationBody(view: DestinationView) {
  return {
    id: view.id,
    kind: view.kind,
    name: view.name,
    primary: view.primary,
    event_types: view.eventTypes,
    settings: view.settings,
    status: view.status,
    enabled: view.status !== 'disabled',
    recent_failures: view.recentFailures,
    consecutive_failures: view.consecutiveFailures,
    failing_since: wire(view.failingSince),
    disabled_at: wire(view.disabledAt),
    last_success_at: wire(view.lastSuccessAt),
    last_failure_at: wire(view.lastFailureAt),
    held_events: view.heldEvents,
    created_at: wireDateTime(view.createdAt),
    ...(view.secret === undefined ? {} : { secret: view.secret }),
  };
}

export function registerDestinationRoutes(app: App, ctx: AppContext) {
  const destinations = ctx.webhooks.destinations;

  app.get(
    '/v2/destinations',
    {
      config,
      schema: {
        tags,
        summary: 'Every destination: the webhook first, then the others (settings without secrets)',
        response: { 200: DestinationList },
      },
    },
    async (request) => ({
      destinations: (await destinations.list(request.developer.id)).map(destinationBody),
    }),
  );

  app.post(
    '/v2/destinations',
    {
      config,
      schema: {
        tags,
        summary: 'Add a destination: a kind plus its settings',
        description:
          'Every event (of its event_types, when given) then also goes to it, through the same outbox, retries, ' +
          'health and hold as the webhook. Settings are stored encrypted; secrets are never returned. kind webhook ' +
          'sets the primary webhook URL while it has none, else adds a secondary webhook (its signing secret in ' +
          `the answer, this once). At most ${MAX_DESTINATIONS} destinations besides the primary webhook (409 past that).`,
        body: CreateDestinationBody,
        'x-body': CreateDestinationDoc,
        response: { 201: DestinationBody },
      },
    },
    async (request, reply) => {
      const { kind, name, settings, event_types } = request.body;
      const created = await destinations.create(request.developer.id, {
        kind,
        settings,
        ...(name === undefined ? {} : { name }),
        ...(event_types === undefined ? {} : { eventTypes: event_types }),
      });
      return reply.code(201).send(destinationBody(created));
    },
  );

  app.get(
    '/v2/destinations/:id',
    {
      config,
      schema: {
        tags,
        summary: 'One destination: settings (without secrets), status and recent failures',
        params: DestinationParams,
        response: { 200: DestinationBody },
      },
    },
    async (request) => destinationBody(await destinations.get(request.developer.id, request.params.id)),
  );

  app.patch(
    '/v2/destinations/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Change its name or settings, or enable/disable it',
        description:
          'Settings are merged over the stored ones. enabled: true clears the failure streak and sends the held events.',
        params: DestinationParams,
        body: PatchDestinationBody,
        response: { 200: PatchDestinationResponse },
      },
    },
    async (request) => {
      const { name, settings, enabled, event_types } = request.body;
      const result = await destinations.update(request.developer.id, request.params.id, {
        ...(name === undefined ? {} : { name }),
        ...(settings === undefined ? {} : { settings }),
        ...(enabled === undefined ? {} : { enabled }),
        ...(event_types === undefined ? {} : { eventTypes: event_types }),
      });
      return { ...destinationBody(result), replayed: result.replayed };
    },
  );

  app.delete(
    '/v2/destinations/:id',
    {
      config,
      schema: {
        tags,
        summary:
          'Delete a destination and its delivery log (409 for the primary webhook: disable it instead)',
        params: DestinationParams,
        response: { 204: Nothing },
      },
    },
    async (request, reply) => {
      await destinations.remove(request.developer.id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v2/destinations/:id/test',
    {
      config,
      schema: {
        tags,
        summary: 'Send a healthcheck event to this destination only',
        description: 'Delivered, logged and retried like any event. 409 when the destination is disabled.',
        params: DestinationParams,
        response: { 202: DestinationQueued },
      },
    },
    async (request, reply) => {
      const { eventId } = await destinations.sendTest(request.developer.id, request.params.id);
      return reply.code(202).send({ status: 'queued' as const, event_id: eventId });
    },
  );

  app.get(
    '/v2/destinations/:id/deliveries',
    {
      config,
      schema: {
        tags,
        summary: "The destination's delivery log: events newest first, each with every attempt",
        params: DestinationParams,
        querystring: DeliveriesQuery,
        response: { 200: DestinationDeliveries },
      },
    },
    async (request) => {
      const { status, type, user_id, since, cursor, limit } = request.query;
      const page = await destinations.deliveries(request.developer.id, request.params.id, {
        ...(status === undefined ? {} : { status }),
        ...(type === undefined ? {} : { type }),
        ...(user_id === undefined ? {} : { userId: user_id }),
        ...(since === undefined ? {} : { since }),
        ...(cursor === undefined ? {} : { cursor }),
        ...(limit === undefined ? {} : { limit }),
      });
      return { deliveries: page.deliveries.map(toWireDelivery), next_cursor: page.nextCursor };
    },
  );

  app.post(
    '/v2/destinations/:id/deliveries/:event_id/replay',
    {
      config,
      schema: {
        tags,
        summary: 'Send an event of this destination again (same event id), with a fresh round of retries',
        params: DestinationEventParams,
        response: { 202: DestinationQueued },
      },
    },
    async (request, reply) => {
      const { eventId } = await destinations.replay(
        request.developer.id,
        request.params.id,
        request.params.event_id,
      );
      return reply.code(202).send({ status: 'queued' as const, event_id: eventId });
    },
  );
}
