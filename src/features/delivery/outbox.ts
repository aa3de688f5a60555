// Writing events into the outbox. An event is stored once (with the exact bytes that will be
// signed and sent), with a delivery per destination, in the caller's transaction, so the change
// that caused an event and the event itself commit or vanish together. Its first delivery jobs are
// enqueued in that transaction too when the emit fills at least one job; a smaller emit (one event
// per transaction is the common case) marks its deliveries `awaiting_job` instead, and the outbox
// relay (relay.ts) queues them in batches once they commit: a queue job costs several times the
// delivery row, so one job per event capped the rate one-event transactions could sustain.
import { newId } from '../../core/ids.ts';
import { currentTraceparent } from '../../core/tracing.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { eventRoutes } from './destination-repo.ts';
import type { WebhookEnvelope } from './events.ts';
import type { WebhookHooks } from './hooks.ts';
import { insertEvents, type NewDeliveryRow, type NewEventRow } from './event-rows.ts';

/**
 * First attempts. Retries and destinations that are failing or slow use the slow lane. (Not the
 * previous release's `webhooks.deliver*`: while both run, each works only on its own rows.)
 */
export const DELIVERY_QUEUE = 'delivery.deliver';
export const SLOW_DELIVERY_QUEUE = 'delivery.deliver-slow';

/**
 * Attempts to make: `[delivery id, generation]` pairs (a job for an older generation of a delivery is
 * stale and skipped) and the try number within the current round of the schedule. Retries carry
 * one event; a bulk emit shares a job between up to EVENTS_PER_JOB events, because a queue job
 * costs more to insert, claim and complete than the outbox row it points at.
 */
export type DeliveryJob = { events: [string, number][]; try: number };
export const EVENTS_PER_JOB = 25;

/** Jobs for first attempts (try 1) of the given event generations, EVENTS_PER_JOB to a job. */
export function firstAttemptJobs(
  events: readonly { id: string; generation: number }[],
): { data: DeliveryJob }[] {
  const jobs: { data: DeliveryJob }[] = [];
  for (let i = 0; i < events.length; i += EVENTS_PER_JOB) {
    const slice = events.slice(i, i + EVENTS_PER_JOB);
    jobs.push({ data: { events: slice.map((event) => [event.id, event.generation]), try: 1 } });
  }
  return jobs;
}

export function newEventId(): string {
  return newId('webhookEvent');
}

export function newDeliveryId(): string {
  return newId('delivery');
}

/**
 * Stores events (each once) and a delivery of each to each of the developer's destinations, and
 * enqueues their first attempts in `trx`. Suppressible events the suppression hook withholds get
 * `dropped` deliveries (visible in the log, never sent). Returns the ids of the stored events, in
 * order.
 *
 * Each event goes to the developer's primary webhook and to each of its other destinations (an
 * envelope marked `webhookOnly` to the primary webhook alone), each that takes its type (its
 * `event_types`, null: all). With `only`, the events go to that one destination instead (its test
 * send). An event no destination takes is stored all the same (its id was handed out).
 */
export async function writeToOutbox(
  deps: {
    jobs: JobQueue;
    hooks: Pick<WebhookHooks, 'suppress'>;
    now: Date;
    /**
     * Told when deliveries await the relay (it looks soon after; its periodic pass is the safety
     * net), and which trace emitted them, so their delivery continues it.
     */
    relay: { wake(traced?: { eventIds: readonly string[]; traceparent: string }): void };
  },
  trx: Db,
  developerId: string,
  envelopes: readonly WebhookEnvelope[],
  /** One destination (null: the primary webhook). */
  only?: { destinationId: string | null },
): Promise<string[]> {
  const drafts = envelopes.map((envelope) => ({ id: envelope.id ?? newEventId(), envelope }));
  const candidates = drafts
    .filter(({ envelope }) => envelope.suppressible)
    .map(({ id, envelope }) => ({ id, userId: envelope.userId ?? null }));
  const withheld =
    candidates.length > 0 ? await deps.hooks.suppress(trx, candidates, 'emit') : new Map<string, string>();
  const routes = only ? null : await eventRoutes(trx, developerId);
  const takes = (types: string[] | null, type: string) => types === null || types.includes(type);
  const events: NewEventRow[] = drafts.map(({ id, envelope }) => ({
    id,
    developer_id: developerId,
    type: envelope.type,
    user_id: envelope.userId ?? null,
    reference: envelope.reference ?? null,
    suppressible: envelope.suppressible ?? false,
    body: JSON.stringify(envelope.payload),
    created_at: deps.now,
  }));
  const targets = drafts.flatMap(({ id, envelope }) => {
    const to: (string | null)[] = !routes
      ? [only!.destinationId]
      : [
          ...(takes(routes.primaryTypes, envelope.type) ? [null] : []),
          ...(envelope.webhookOnly
            ? []
            : routes.others
                .filter((other) => takes(other.eventTypes, envelope.type))
                .map((other) => other.id)),
        ];
    return to.map((destinationId) => ({ eventId: id, destinationId, dropReason: withheld.get(id) ?? null }));
  });
  const pendingCount = targets.filter((target) => target.dropReason === null).length;
  const viaRelay = pendingCount < EVENTS_PER_JOB;
  const deliveries: NewDeliveryRow[] = targets.map(({ eventId, destinationId, dropReason }) => ({
    id: newDeliveryId(),
    event_id: eventId,
    developer_id: developerId,
    destination_id: destinationId,
    status: dropReason ? 'dropped' : 'pending',
    last_error: dropReason,
    awaiting_job: viaRelay && !dropReason,
    created_at: deps.now,
    updated_at: deps.now,
  }));
  await insertEvents(trx, events, deliveries);
  const ids = events.map((event) => event.id);
  const pending = deliveries.filter((row) => row.status === 'pending');
  if (viaRelay) {
    if (pending.length > 0) {
      const traceparent = currentTraceparent();
      const eventIds = pending.map((row) => row.id);
      deps.relay.wake(traceparent === undefined ? undefined : { eventIds, traceparent });
    }
    return ids;
  }
  await deps.jobs.sendMany(
    DELIVERY_QUEUE,
    firstAttemptJobs(pending.map((row) => ({ id: row.id, generation: 0 }))),
    trx,
  );
  return ids;
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [DELIVERY_QUEUE]: DeliveryJob;
    [SLOW_DELIVERY_QUEUE]: DeliveryJob;
  }
}
