// Writing events into the outbox. An event is stored (with the exact bytes that will be signed
// and sent) in the caller's transaction, so the change that caused an event and the event itself
// commit or vanish together. Its first delivery job is enqueued in that transaction too when the
// emit fills at least one job; a smaller emit (one event per transaction is the common case) marks
// its events `awaiting_job` instead, and the outbox relay (relay.ts) queues them in batches once
// they commit: a queue job costs several times the event row, so one job per event capped the
// rate one-event transactions could sustain.
import { newId } from '../../core/ids.ts';
import { currentTraceparent } from '../../core/tracing.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { otherDestinationIds } from './destination-repo.ts';
import type { WebhookEnvelope } from './events.ts';
import type { WebhookHooks } from './hooks.ts';
import { insertEvents, type NewEventRow } from './repo.ts';

/** First attempts. Retries and destinations that are failing or slow use the slow lane. */
export const DELIVERY_QUEUE = 'webhooks.deliver';
export const SLOW_DELIVERY_QUEUE = 'webhooks.deliver-slow';

/**
 * Attempts to make: `[event id, generation]` pairs (a job for an older generation of an event is
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

/**
 * Stores events and enqueues their first attempts in `trx`. Suppressible events the suppression
 * hook withholds are stored as `dropped` (visible in the log, never sent). Returns the ids of the
 * stored events, in order.
 *
 * Each event goes to the developer's webhook and, as a copy with an id of its own, to each of the
 * developer's destinations of other kinds (an envelope marked `webhookOnly` to the webhook
 * alone). With `only`, the events go to that one destination instead (its test send).
 */
export async function writeToOutbox(
  deps: {
    jobs: JobQueue;
    hooks: Pick<WebhookHooks, 'suppress'>;
    now: Date;
    /**
     * Told when events await the relay (it looks soon after; its periodic pass is the safety net),
     * and which trace emitted them, so their delivery continues it.
     */
    relay: { wake(traced?: { eventIds: readonly string[]; traceparent: string }): void };
  },
  trx: Db,
  developerId: string,
  envelopes: readonly WebhookEnvelope[],
  only?: { destinationId: string },
): Promise<string[]> {
  const drafts = envelopes.map((envelope) => ({
    id: envelope.id ?? newEventId(),
    envelope,
    destinationId: only?.destinationId ?? null,
    origin: null as string | null,
  }));
  const candidates = drafts
    .filter(({ envelope }) => envelope.suppressible)
    .map(({ id, envelope }) => ({ id, userId: envelope.userId ?? null }));
  const withheld =
    candidates.length > 0 ? await deps.hooks.suppress(trx, candidates, 'emit') : new Map<string, string>();
  const others = only ? [] : await otherDestinationIds(trx, developerId);
  const copies = others.flatMap((destinationId) =>
    drafts
      .filter(({ envelope }) => !envelope.webhookOnly)
      .map((draft) => ({ ...draft, id: newEventId(), destinationId, origin: draft.id })),
  );
  const all = [...drafts, ...copies];
  const returned = new Set(drafts.map((draft) => draft.id));
  const dropReasonOf = (draft: (typeof all)[number]) => withheld.get(draft.origin ?? draft.id) ?? null;
  const pendingCount = all.filter((draft) => dropReasonOf(draft) === null).length;
  const viaRelay = pendingCount < EVENTS_PER_JOB;
  const rows: NewEventRow[] = all.map((draft) => {
    const { id, envelope } = draft;
    const dropReason = dropReasonOf(draft);
    return {
      id,
      developer_id: developerId,
      destination_id: draft.destinationId,
      type: envelope.type,
      user_id: envelope.userId ?? null,
      reference: envelope.reference ?? null,
      suppressible: envelope.suppressible ?? false,
      body: JSON.stringify(envelope.payload),
      status: dropReason ? 'dropped' : 'pending',
      last_error: dropReason,
      awaiting_job: viaRelay && !dropReason,
      created_at: deps.now,
      updated_at: deps.now,
    };
  });
  await insertEvents(trx, rows);
  const ids = rows.filter((row) => returned.has(row.id)).map((row) => row.id);
  if (viaRelay) {
    if (pendingCount > 0) {
      const traceparent = currentTraceparent();
      const eventIds = rows.filter((row) => row.status === 'pending').map((row) => row.id);
      deps.relay.wake(traceparent === undefined ? undefined : { eventIds, traceparent });
    }
    return ids;
  }
  const pending = rows
    .filter((row) => row.status === 'pending')
    .map((row) => ({ id: row.id, generation: 0 }));
  await deps.jobs.sendMany(DELIVERY_QUEUE, firstAttemptJobs(pending), trx);
  return ids;
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [DELIVERY_QUEUE]: DeliveryJob;
    [SLOW_DELIVERY_QUEUE]: DeliveryJob;
  }
}
