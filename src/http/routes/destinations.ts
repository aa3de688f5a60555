// One route family for destinations of every kind (the webhook, the developer's PostgreSQL, S3
// object storage, a NATS JetStream stream): `/v2/destinations/{id}…`, and `/v2/webhook…`, the
// vendor contract's paths, as an alias for the developer's primary webhook: the same handlers,
// with the id found from the developer, and the contract's shapes for the destination itself.
// Thin: parse, call the delivery service (features/delivery/destination-management.ts), shape
// the reply. docs/destinations.md.
import Type from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { toWireDelivery } from '../../features/delivery/deliveries.ts';
import { MAX_DESTINATIONS } from '../../features/delivery/destination-input.ts';
import {
  CreateDestinationBody,
  CreateDestinationDoc,
  DeliveriesQuery,
  DeliveriesResponse,
  Destination,
  DestinationBody,
  DestinationEventParams,
  DestinationList,
  DestinationParams,
  DestinationQueued,
  EventParams,
  PatchDestinationBody,
  PatchDestinationResponse,
  PutDestinationBody,
  PutDestinationResponse,
  Queued,
  Resent,
  RotatedSecret,
} from '../../features/delivery/schemas.ts';
import { wireDateTime } from '../../model/time.ts';
import {
  destinationBody,
  webhookBody,
  type DeliveriesQueryType,
  deliveryFilters,
} from './destinations-wire.ts';

const config = { auth: 'developer' as const };
const Nothing = Type.Null({ description: 'No body' });

export function registerDestinationRoutes(app: App, ctx: AppContext) {
  const { webhooks } = ctx;
  const { destinations } = webhooks;
  /** How a route finds its destination: from the path, or the primary webhook for the alias. */
  type IdOf = (request: FastifyRequest) => string | Promise<string>;
  const byPath: IdOf = (request) => (request.params as { id: string }).id;
  const primary: IdOf = (request) => destinations.primaryId(request.developer.id);

  // The actions both paths have, each one handler.
  const test = (idOf: IdOf) => async (request: FastifyRequest, reply: FastifyReply) => {
    const { eventId } = await destinations.sendTest(request.developer.id, await idOf(request));
    return reply.code(202).send({ status: 'queued' as const, event_id: eventId });
  };
  const deliveries = (idOf: IdOf) => async (request: FastifyRequest) => {
    const page = await destinations.deliveries(
      request.developer.id,
      await idOf(request),
      deliveryFilters(request.query as DeliveriesQueryType),
    );
    return { deliveries: page.deliveries.map(toWireDelivery), next_cursor: page.nextCursor };
  };
  const replay = (idOf: IdOf) => async (request: FastifyRequest, reply: FastifyReply) => {
    const { event_id } = request.params as { event_id: string };
    const { eventId } = await destinations.replay(request.developer.id, await idOf(request), event_id);
    return reply.code(202).send({ status: 'queued' as const, event_id: eventId });
  };
  const rotateSecret = (idOf: IdOf) => async (request: FastifyRequest) => {
    const rotated = await destinations.rotateSecret(request.developer.id, await idOf(request));
    return {
      secret: rotated.secret,
      previous_secret_expires_at: wireDateTime(rotated.previousSecretExpiresAt),
    };
  };

  // `/v2/webhook`: the primary webhook (the vendor contract), tag `webhooks`.
  const alias = ['webhooks'];

  app.get(
    '/v2/webhook',
    {
      config,
      schema: {
        tags: alias,
        summary: 'The webhook destination: URL, status and recent failures (never the secret)',
        response: { 200: Destination },
      },
    },
    async (request) => webhookBody(await webhooks.getDestination(request.developer.id), webhooks.settings),
  );

  app.put(
    '/v2/webhook',
    {
      config,
      schema: {
        tags: alias,
        summary: 'Set the destination URL, or enable/disable it',
        description:
          'Setting a URL (or enabled: true) enables the destination, clears its failure streak and replays every held event. ' +
          'enabled: false pauses deliveries: events are held until it is enabled again. url: null removes the URL ' +
          '(events are held until one is set).',
        body: PutDestinationBody,
        response: { 200: PutDestinationResponse },
      },
    },
    async (request) => {
      const result = await webhooks.setDestination(request.developer.id, request.body);
      return { ...webhookBody(result, webhooks.settings), replayed: result.replayed };
    },
  );

  app.post(
    '/v2/webhook/rotate-secret',
    {
      config,
      schema: {
        tags: alias,
        summary: 'Replace the signing secret; each replaced secret keeps signing alongside for 24 hours',
        description:
          'Rotations are serialised. At most 4 replaced secrets sign at once: a further rotation inside ' +
          'their 24 hours answers 429 with Retry-After (until the oldest expires).',
        response: { 200: RotatedSecret },
      },
    },
    rotateSecret(primary),
  );

  app.post(
    '/v2/webhook/test',
    {
      config,
      schema: {
        tags: alias,
        summary: 'Send a healthcheck event to the destination',
        description:
          'Delivered, signed, logged and retried like any event. 409 when no destination is set or it is disabled.',
        response: { 202: Queued },
      },
    },
    test(primary),
  );

  app.get(
    '/v2/webhook/deliveries',
    {
      config,
      schema: {
        tags: alias,
        summary: 'The delivery log: events newest first, each with every attempt',
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesResponse },
      },
    },
    deliveries(primary),
  );

  app.post(
    '/v2/webhook/deliveries/:event_id/replay',
    {
      config,
      schema: {
        tags: alias,
        summary: 'Send an event again (same webhook-id), with a fresh round of retries',
        params: EventParams,
        response: { 202: Queued },
      },
    },
    replay(primary),
  );

  const tags = ['destinations'];

  app.post(
    '/v2/events/:event_id/resend',
    {
      config,
      schema: {
        tags,
        summary:
          'Resend an event by its id to every destination it went to (same event id), with fresh retries',
        description:
          'Each of its deliveries (the webhook and every other destination that took it: delivered, failed, held ' +
          'or dropped) is queued again with the same event id, service-trace-id and service-ordering-timestamp, ' +
          'so a receiver that already has it dedupes it and newer data is never overwritten. 404 when the event ' +
          'is not yours (or has passed the retention).',
        params: EventParams,
        response: { 202: Resent },
      },
    },
    async (request, reply) => {
      const { eventId, deliveries } = await webhooks.resend(request.developer.id, request.params.event_id);
      return reply.code(202).send({ status: 'queued' as const, event_id: eventId, deliveries });
    },
  );

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
    test(byPath),
  );

  app.post(
    '/v2/destinations/:id/rotate-secret',
    {
      config,
      schema: {
        tags,
        summary:
          "Replace a webhook's signing secret; each replaced secret keeps signing alongside for 24 hours",
        description:
          'As POST /v2/webhook/rotate-secret, for any webhook destination. 409 for a kind without a signing secret.',
        params: DestinationParams,
        response: { 200: RotatedSecret },
      },
    },
    rotateSecret(byPath),
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
        response: { 200: DeliveriesResponse },
      },
    },
    deliveries(byPath),
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
    replay(byPath),
  );
}
