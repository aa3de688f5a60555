// The data feature's webhook events: data events (one per data type), the athlete, the
// large-request announcements and rate_limit_hit. Property names follow the reference wire
// contract exactly (docs/wire-contract.md#webhook-events); nothing else assembles these payloads.
import { wireDateTime } from '../../model/time.ts';
import type { WebhookEnvelope } from '../delivery/events.ts';
import {
  type JsonObject,
  toWebhookUser,
  WEBHOOK_MODEL_VERSION,
  type WebhookModelVersion,
  type WebhookUser,
  type WebhookUserInput,
} from '../connections/webhook-user.ts';

export type { JsonObject } from '../connections/webhook-user.ts';

/** Data types whose records travel in `data` (athlete differs: one object under `athlete`). */
export const DATA_EVENT_TYPES = [
  'activity',
  'body',
  'daily',
  'hormone',
  'menstruation',
  'nutrition',
  'plannedWorkout',
  'sleep',
] as const;
export type DataEventType = (typeof DATA_EVENT_TYPES)[number];

/**
 * The event `type` each data type is sent as. Planned workouts are `planned_workout` in the
 * vendor's current schema (the older `plannedWorkout` data type name stays the read path's).
 */
export const DATA_EVENT_NAMES = {
  activity: 'activity',
  body: 'body',
  daily: 'daily',
  hormone: 'hormone',
  menstruation: 'menstruation',
  nutrition: 'nutrition',
  plannedWorkout: 'planned_workout',
  sleep: 'sleep',
} as const satisfies Record<DataEventType, string>;
export type DataEventName = (typeof DATA_EVENT_NAMES)[DataEventType];

const EVENT_NAMES = new Set<string>(Object.values(DATA_EVENT_NAMES));

/** Whether an event `type` is one of the data events (by its name on the wire). */
export function isDataEventType(value: string): value is DataEventName {
  return EVENT_NAMES.has(value);
}

// `reference` is present only when a data request caused the delivery; provider pushes have none.
export type DataEvent = {
  [T in DataEventName]: {
    type: T;
    user: WebhookUser;
    data: readonly JsonObject[];
    version: WebhookModelVersion;
    reference?: string;
  };
}[DataEventName];

/**
 * A data event for records of `type`. Planned workouts must already be in their wire form
 * (model/planned-workout-current.ts): the event carries what it is given.
 */
export function buildDataEvent<T extends DataEventType>(
  type: T,
  input: { user: WebhookUserInput; data: readonly JsonObject[]; reference?: string | null },
): Extract<DataEvent, { type: (typeof DATA_EVENT_NAMES)[T] }> {
  const event = {
    type: DATA_EVENT_NAMES[type],
    user: toWebhookUser(input.user),
    data: input.data,
    version: WEBHOOK_MODEL_VERSION,
  };
  const withReference = input.reference ? { ...event, reference: input.reference } : event;
  return withReference as Extract<DataEvent, { type: (typeof DATA_EVENT_NAMES)[T] }>;
}

export interface AthleteEvent {
  type: 'athlete';
  user: WebhookUser;
  athlete: JsonObject;
  version: WebhookModelVersion;
  reference?: string;
}

export function buildAthleteEvent(input: {
  user: WebhookUserInput;
  athlete: JsonObject;
  reference?: string | null;
}): AthleteEvent {
  const event: AthleteEvent = {
    type: 'athlete',
    user: toWebhookUser(input.user),
    athlete: input.athlete,
    version: WEBHOOK_MODEL_VERSION,
  };
  if (input.reference) event.reference = input.reference;
  return event;
}

export interface LargeRequestProcessingEvent {
  type: 'large_request_processing';
  status: 'processing';
  message: string;
  user: WebhookUser;
  reference: string;
}

export function buildLargeRequestProcessingEvent(input: {
  user: WebhookUserInput;
  reference: string;
}): LargeRequestProcessingEvent {
  return {
    type: 'large_request_processing',
    status: 'processing',
    message: 'Large request received: the data is being processed and will be sent in chunks',
    user: toWebhookUser(input.user),
    reference: input.reference,
  };
}

/** No `status` key: the contract's large_request_sending has none. */
export interface LargeRequestSendingEvent {
  type: 'large_request_sending';
  message: string;
  user: WebhookUser;
  reference: string;
  expected_payloads: number;
}

export function buildLargeRequestSendingEvent(input: {
  user: WebhookUserInput;
  reference: string;
  expectedPayloads: number;
}): LargeRequestSendingEvent {
  return {
    type: 'large_request_sending',
    message: `Sending ${input.expectedPayloads} data payloads for this request`,
    user: toWebhookUser(input.user),
    reference: input.reference,
    expected_payloads: input.expectedPayloads,
  };
}

export interface RateLimitHitEvent {
  type: 'rate_limit_hit';
  user: WebhookUser;
  start_date: string;
  end_date: string;
  retrying_at: string;
  message: string;
}

export function buildRateLimitHitEvent(input: {
  user: WebhookUserInput;
  startDate: string | Date;
  endDate: string | Date;
  retryingAt: string | Date;
}): RateLimitHitEvent {
  return {
    type: 'rate_limit_hit',
    user: toWebhookUser(input.user),
    start_date: wireDateTime(input.startDate),
    end_date: wireDateTime(input.endDate),
    retrying_at: wireDateTime(input.retryingAt),
    message: 'Rate limit reached whilst processing async query',
  };
}

/**
 * Records the provider deleted, for types whose records have no deletion mark of their own (the
 * contract marks a deleted activity or day with `metadata.upload_type` 4, Delete, in its data
 * event): an informational event like `permission_change`, naming each removed record by the
 * `metadata` it was sent with.
 */
export interface DataDeletedEvent {
  type: 'data_deleted';
  status: 'warning';
  message: string;
  user: WebhookUser;
  data_type: DataEventType;
  deleted: readonly { metadata: JsonObject }[];
  version: WebhookModelVersion;
}

export function buildDataDeletedEvent(input: {
  user: WebhookUserInput;
  dataType: DataEventType;
  metadata: readonly JsonObject[];
}): DataDeletedEvent {
  return {
    type: 'data_deleted',
    status: 'warning',
    message: 'Records were deleted at the provider',
    user: toWebhookUser(input.user),
    data_type: input.dataType,
    deleted: input.metadata.map((metadata) => ({ metadata })),
    version: WEBHOOK_MODEL_VERSION,
  };
}

/** Types whose records carry the contract's deletion mark (`metadata.upload_type` 4, Delete). */
export const DELETION_MARKED_TYPES: ReadonlySet<DataEventType> = new Set(['activity', 'daily']);
/** UploadType 4: "The workout was marked for deletion" (the contract's UploadType enum). */
export const UPLOAD_TYPE_DELETE = 4;

export type DataWebhookEvent =
  | DataEvent
  | AthleteEvent
  | LargeRequestProcessingEvent
  | LargeRequestSendingEvent
  | RateLimitHitEvent
  | DataDeletedEvent;

/** Events that carry health data: only these are withheld from inactive and deleted users. */
export function carriesUserData(type: string): boolean {
  return type === 'athlete' || type === 'data_deleted' || isDataEventType(type);
}

export type DataEnvelopeOptions = {
  /** Defaults to the event's `user.user_id`. */
  userId?: string;
  /** Sent as `service-reference`; defaults to the event's own `reference`. */
  reference?: string;
};

/** The envelope the webhook engine carries; events with health data are suppressible. */
export function dataEnvelope(event: DataWebhookEvent, options: DataEnvelopeOptions = {}): WebhookEnvelope {
  const own = 'reference' in event && typeof event.reference === 'string' ? event.reference : null;
  return {
    type: event.type,
    payload: event,
    userId: options.userId ?? event.user.user_id,
    reference: options.reference ?? own,
    suppressible: carriesUserData(event.type),
  };
}
