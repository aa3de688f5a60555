// Writing events into the outbox. An event is stored (with the exact bytes that will be signed
// and sent) and its delivery job enqueued in the caller's transaction, so the change that caused
// an event and the event itself commit or vanish together.
import { randomBytes, randomUUID } from 'node:crypto';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { planDataDelivery, serializedSize } from './chunking.ts';
import {
  buildLargeRequestProcessingEvent,
  buildLargeRequestSendingEvent,
  type DataEvent,
  eventReference,
  isDataEventType,
  payloadType,
  type WebhookPayload,
} from './events.ts';
import { findUserActivity, insertEvents, type NewEventRow } from './repo.ts';
import type { WebhookSettings } from './settings.ts';

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

export type EmitOptions = {
  /** Defaults to the event's `user.user_id` (`new_user` for user_reauth). */
  userId?: string;
  /** Sent as `service-reference`; defaults to the event's own `reference`. */
  reference?: string;
  /** The requested range of a data request: a range over 28 days is sent as announced chunks. */
  range?: { start: Date; end: Date };
};

export type EmitItem = { event: WebhookPayload; options?: EmitOptions };

/** Events that carry health data: only these are withheld from inactive and deauthenticated users. */
export function isDataEvent(type: string): boolean {
  return type === 'athlete' || isDataEventType(type);
}

export function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

function eventUserId(event: WebhookPayload): string | null {
  if ('user' in event) return event.user.user_id;
  if ('new_user' in event) return event.new_user.user_id;
  return null;
}

type Expanded = { event: WebhookPayload; userId: string | null; reference: string | null };

/**
 * One event in, one or more out: a data event whose body exceeds the payload limit, or whose
 * request range is long, becomes large_request_processing, large_request_sending
 * {expected_payloads} and the chunks, all carrying one reference (minted when there is none).
 */
export function expandForDelivery(item: EmitItem, settings: WebhookSettings): Expanded[] {
  const { event, options = {} } = item;
  const userId = options.userId ?? eventUserId(event);
  const reference = options.reference ?? eventReference(event);
  if ('event_type' in event || !('data' in event) || !isDataEventType(event.type))
    return [{ event, userId, reference }];
  const plan = planDataDelivery(event.data, options.range ?? { start: new Date(0), end: new Date(0) }, {
    maxBytes: settings.maxPayloadBytes,
    maxObjects: settings.chunkMaxObjects,
    reservedBytes: serializedSize({ ...event, data: [], reference: reference ?? randomUUID() }),
  });
  if (!plan.large) return [{ event, userId, reference }];
  const shared = reference ?? randomUUID();
  const chunks = plan.chunks.map((data) => ({ ...event, data, reference: shared }) as DataEvent);
  return [
    buildLargeRequestProcessingEvent({ user: event.user, reference: shared }),
    buildLargeRequestSendingEvent({ user: event.user, reference: shared, expectedPayloads: chunks.length }),
    ...chunks,
  ].map((expanded) => ({ event: expanded, userId, reference: shared }));
}

/**
 * Stores events and enqueues their first attempts in `trx`. Data events for a user that is
 * missing or inactive are stored as `dropped` (visible in the log, never sent). Returns the ids
 * of every stored event, in order, chunks included.
 */
export async function writeToOutbox(
  deps: { jobs: JobQueue; settings: WebhookSettings; now: Date },
  trx: Db,
  developerId: string,
  items: readonly EmitItem[],
): Promise<string[]> {
  const expanded = items.flatMap((item) => expandForDelivery(item, deps.settings));
  const dataUsers = expanded.flatMap((entry) =>
    isDataEvent(payloadType(entry.event)) && entry.userId ? [entry.userId] : [],
  );
  const activity = await findUserActivity(trx, dataUsers);
  const rows: NewEventRow[] = expanded.map(({ event, userId, reference }) => {
    const isData = isDataEvent(payloadType(event));
    const active = userId ? activity.get(userId) : undefined;
    const dropReason = !isData
      ? null
      : active === undefined
        ? 'user not found'
        : active
          ? null
          : 'user inactive';
    return {
      id: newEventId(),
      developer_id: developerId,
      type: payloadType(event),
      user_id: userId,
      reference,
      is_data: isData,
      body: JSON.stringify(event),
      status: dropReason ? 'dropped' : 'pending',
      last_error: dropReason,
      created_at: deps.now,
      updated_at: deps.now,
    };
  });
  await insertEvents(trx, rows);
  const pending = rows
    .filter((row) => row.status === 'pending')
    .map((row) => ({ id: row.id, generation: 0 }));
  await deps.jobs.sendMany(DELIVERY_QUEUE, firstAttemptJobs(pending), trx);
  return rows.map((row) => row.id);
}
