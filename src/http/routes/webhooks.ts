import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { toWireDelivery } from '../../features/delivery/deliveries.ts';
import {
  DeliveriesQuery,
  DeliveriesResponse,
  Destination,
  EventParams,
  PutDestinationBody,
  PutDestinationResponse,
  Queued,
  Resent,
  RotatedSecret,
} from '../../features/delivery/schemas.ts';
import type { Destination as DestinationState } from '../../features/delivery/service.ts';
import type { WebhookSettings } from '../../features/delivery/settings.ts';
import { wireDateTime } from '../../model/time.ts';

const tags = ['webhooks'];
const config = { auth: 'developer' as const };

const wire = (at: Date | null) => (at ? wireDateTime(at) : null);

function destinationBody(state: DestinationState, settings: WebhookSettings) {
  return {
    url: state.url,
    status: state.status,
    enabled: state.status !== 'disabled',
    recent_failures: state.recentFailures,
    consecutive_failures: state.consecutiveFailures,
    failing_since: wire(state.failingSince),
    disabled_at: wire(state.disabledAt),
    last_success_at: wire(state.lastSuccessAt),
    last_failure_at: wire(state.lastFailureAt),
    held_events: state.heldEvents,
    previous_secret_expires_at: wire(state.previousSecretExpiresAt),
    failing_after_seconds: Math.round(settings.failingAfterMs / 1000),
    disable_after_seconds: Math.round(settings.disableAfterMs / 1000),
  };
}

export function registerWebhookRoutes(app: App, ctx: AppContext) {
  const { webhooks } = ctx;

  app.get(
    '/v2/webhook',
    {
      config,
      schema: {
        tags,
        summary: 'The webhook destination: URL, status and recent failures (never the secret)',
        response: { 200: Destination },
      },
    },
    async (request) =>
      destinationBody(await webhooks.getDestination(request.developer.id), webhooks.settings),
  );

  app.put(
    '/v2/webhook',
    {
      config,
      schema: {
        tags,
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
      return { ...destinationBody(result, webhooks.settings), replayed: result.replayed };
    },
  );

  app.post(
    '/v2/webhook/rotate-secret',
    {
      config,
      schema: {
        tags,
        summary: 'Replace the signing secret; each replaced secret keeps signing alongside for 24 hours',
        description:
          'Rotations are serialised. At most 4 replaced secrets sign at once: a further rotation inside ' +
          'their 24 hours answers 429 with Retry-After (until the oldest expires).',
        response: { 200: RotatedSecret },
      },
    },
    async (request) => {
      const rotated = await webhooks.rotateSecret(request.developer.id);
      return {
        secret: rotated.secret,
        previous_secret_expires_at: wireDateTime(rotated.previousSecretExpiresAt),
      };
    },
  );

  app.post(
    '/v2/webhook/test',
    {
      config,
      schema: {
        tags,
        summary: 'Send a healthcheck event to the destination',
        description:
          'Delivered, signed, logged and retried like any event. 409 when no destination is set or it is disabled.',
        response: { 202: Queued },
      },
    },
    async (request, reply) => {
      const { eventId } = await webhooks.sendTest(request.developer.id);
      return reply.code(202).send({ status: 'queued' as const, event_id: eventId });
    },
  );

  app.get(
    '/v2/webhook/deliveries',
    {
      config,
      schema: {
        tags,
        summary: 'The delivery log: events newest first, each with every attempt',
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesResponse },
      },
    },
    async (request) => {
      const { status, type, user_id, since, cursor, limit } = request.query;
      const page = await webhooks.listDeliveries(request.developer.id, {
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
    '/v2/webhook/deliveries/:event_id/replay',
    {
      config,
      schema: {
        tags,
        summary: 'Send an event again (same webhook-id), with a fresh round of retries',
        params: EventParams,
        response: { 202: Queued },
      },
    },
    async (request, reply) => {
      const { eventId } = await webhooks.replay(request.developer.id, request.params.event_id);
      return reply.code(202).send({ status: 'queued' as const, event_id: eventId });
    },
  );

  app.post(
    '/v2/events/:event_id/resend',
    {
      config,
      schema: {
        tags: ['destinations'],
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
}
