// The webhook event library. Property names follow the reference wire contract exactly (wire-facts
// section C), so receivers written for it parse our payloads unchanged. Later features build an
// event here and hand it to the delivery engine; nothing else should assemble payloads by hand.

import type { OrderWebhookEvent } from '../orders/domain/events.ts';
import type { JsonObject, WebhookUser, WebhookUserInput } from './webhook-user.ts';
import { commaList, toWebhookUser, wireDateTime } from './webhook-user.ts';

/** Data-model version carried by data events and the events the contract marks with `version`. */
export const WEBHOOK_MODEL_VERSION = '2022-03-16';
export type WebhookModelVersion = typeof WEBHOOK_MODEL_VERSION;

export type { JsonObject, WebhookUser, WebhookUserInput } from './webhook-user.ts';
export { toWebhookUser, wireDateTime } from './webhook-user.ts';

// --- Connection lifecycle -----------------------------------------------------------------------

export interface AuthSuccessEvent {
  type: 'auth';
  status: 'success';
  user: WebhookUser;
  reference_id: string | null;
  widget_session_id: string | null;
}

export interface AuthErrorEvent {
  type: 'auth';
  status: 'error';
  user: WebhookUser;
  provider: string;
  message: string;
  reason: string;
  reference_id: string | null;
  widget_session_id: string | null;
}

export interface AuthContext {
  referenceId?: string | null;
  widgetSessionId?: string | null;
}

export function buildAuthSuccessEvent(user: WebhookUserInput, context: AuthContext = {}): AuthSuccessEvent {
  return {
    type: 'auth',
    status: 'success',
    user: toWebhookUser(user),
    reference_id: context.referenceId ?? user.reference_id ?? null,
    widget_session_id: context.widgetSessionId ?? null,
  };
}

export function buildAuthErrorEvent(
  user: WebhookUserInput,
  failure: AuthContext & { reason: string; message?: string },
): AuthErrorEvent {
  return {
    type: 'auth',
    status: 'error',
    user: toWebhookUser(user),
    provider: user.provider,
    message: failure.message ?? 'User failed to authenticate and has been deleted',
    reason: failure.reason,
    reference_id: failure.referenceId ?? user.reference_id ?? null,
    widget_session_id: failure.widgetSessionId ?? null,
  };
}

/** Events that are only `{type, status, message, user}`; the table fixes status and wording. */
const USER_NOTICES = {
  deauth: { status: 'success', message: 'User has deauthenticated' },
  access_revoked: { status: 'warning', message: 'User revoked access' },
  connection_error: { status: 'warning', message: 'User connection degraded' },
} as const;

export type UserNoticeType = keyof typeof USER_NOTICES;
export type UserNoticeEvent = {
  [T in UserNoticeType]: {
    type: T;
    status: (typeof USER_NOTICES)[T]['status'];
    message: string;
    user: WebhookUser;
  };
}[UserNoticeType];

export function buildUserNoticeEvent<T extends UserNoticeType>(
  type: T,
  user: WebhookUserInput,
): Extract<UserNoticeEvent, { type: T }> {
  const notice = USER_NOTICES[type];
  const event = { type, status: notice.status, message: notice.message, user: toWebhookUser(user) };
  return event as Extract<UserNoticeEvent, { type: T }>;
}

export interface UserReauthEvent {
  type: 'user_reauth';
  status: 'warning';
  message: string;
  new_user: WebhookUser;
  old_user: WebhookUser;
  version: WebhookModelVersion;
}

export function buildUserReauthEvent(newUser: WebhookUserInput, oldUser: WebhookUserInput): UserReauthEvent {
  return {
    type: 'user_reauth',
    status: 'warning',
    message: 'User has reauthenticated and old ID has been deleted',
    new_user: toWebhookUser(newUser),
    old_user: toWebhookUser(oldUser),
    version: WEBHOOK_MODEL_VERSION,
  };
}

export interface PermissionChangeEvent {
  type: 'permission_change';
  status: 'warning';
  message: string;
  version: WebhookModelVersion;
  scopes_added: string;
  scopes_removed: string;
  user: WebhookUser;
}

export function buildPermissionChangeEvent(
  user: WebhookUserInput,
  change: { added: string | readonly string[]; removed: string | readonly string[] },
): PermissionChangeEvent {
  return {
    type: 'permission_change',
    status: 'warning',
    message: 'User permissions have been modified',
    version: WEBHOOK_MODEL_VERSION,
    scopes_added: commaList(change.added),
    scopes_removed: commaList(change.removed),
    user: toWebhookUser(user),
  };
}

// --- Data ----------------------------------------------------------------------------------------

/** Data event types whose records travel in `data` (athlete differs: one object under `athlete`). */
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

export function isDataEventType(value: string): value is DataEventType {
  return (DATA_EVENT_TYPES as readonly string[]).includes(value);
}

// `reference` is present only when a data request caused the delivery; provider pushes have none.
export type DataEvent = {
  [T in DataEventType]: {
    type: T;
    user: WebhookUser;
    data: readonly JsonObject[];
    version: WebhookModelVersion;
    reference?: string;
  };
}[DataEventType];

export function buildDataEvent<T extends DataEventType>(
  type: T,
  input: { user: WebhookUserInput; data: readonly JsonObject[]; reference?: string | null },
): Extract<DataEvent, { type: T }> {
  const event = { type, user: toWebhookUser(input.user), data: input.data, version: WEBHOOK_MODEL_VERSION };
  const withReference = input.reference ? { ...event, reference: input.reference } : event;
  return withReference as Extract<DataEvent, { type: T }>;
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

// --- Large requests and rate limits --------------------------------------------------------------

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

export interface HealthcheckEvent {
  type: 'healthcheck';
  status: 'success';
  creation_timestamp: string;
  trend_percentage: number;
  sent_webhooks_last_hour: number;
}

export function buildHealthcheckEvent(input: {
  createdAt: Date;
  trendPercentage: number;
  sentWebhooksLastHour: number;
}): HealthcheckEvent {
  return {
    type: 'healthcheck',
    status: 'success',
    creation_timestamp: wireDateTime(input.createdAt),
    trend_percentage: input.trendPercentage,
    sent_webhooks_last_hour: input.sentWebhooksLastHour,
  };
}

// --- The union ------------------------------------------------------------------------------------

export type WebhookEvent =
  | AuthSuccessEvent
  | AuthErrorEvent
  | UserNoticeEvent
  | UserReauthEvent
  | PermissionChangeEvent
  | DataEvent
  | AthleteEvent
  | LargeRequestProcessingEvent
  | LargeRequestSendingEvent
  | RateLimitHitEvent
  | HealthcheckEvent;

export type WebhookEventType = WebhookEvent['type'];

/** What the outbox accepts: the data API's events (named by `type`) and the order API's (named by `event_type`). */
export type WebhookPayload = WebhookEvent | OrderWebhookEvent;

export function payloadType(event: WebhookPayload): string {
  return 'event_type' in event ? event.event_type : event.type;
}

/** The originating request's reference, for the `service-reference` header; null when there is none. */
export function eventReference(event: WebhookPayload): string | null {
  return 'reference' in event && typeof event.reference === 'string' ? event.reference : null;
}
