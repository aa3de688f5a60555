// How the Huawei Health Kit API behaves, as data and hooks (docs/providers.md#huawei-health-kit).
//
// Limits: Huawei publishes no request quota for the Health Kit REST API (its FAQ only says
// frequent calls may be flow-controlled); the windows below are a courtesy an operator can
// change (HUAWEI_REQUEST_BUDGET). A 429 is honoured with its Retry-After by the framework.
//
// Revocation: DELETE /healthkit/v2/consents/{appId}?deleteData=false (HMSCore-References
// "Canceling Scopes": the app id is the OAuth client id) withdraws every Health Kit scope the
// user granted the app, keeping the user's data at Huawei.
//
// Notifications (HMSCore-Guides "subscription", HMSCore-References "subscriber event"): Huawei
// POSTs `{openId, eventType, eventTime, subscriptionId, metaData}` to the subscriber's callback
// URL, signed in `x-notification-signature`: Base64(HMAC-SHA256(key, `openId_eventType_eventTime`))
// where the key is the subscriber secret from the console, itself Base64 (HUAWEI_WEBHOOK_SECRET).
// The callback answers 204. Event types: `USER_EVENT$REVOKE_ALL` (the user cancelled the app's
// authorization), `USER_EVENT$DELETE_USER`, `USER_EVENT$REFRESH_TOKEN_INVALID`,
// `ACTIVITY_RECORD_EVENT$UPDATE` / `$DELETE` (metaData `startTime`, `endTime` in ms,
// `activityType`, `timeZone`) and sample / health record changes, whose names are read by
// prefix [C]. The subscriber and its callback URL are registered in the console, not through
// the API.
import { createHmac } from 'node:crypto';
import type {
  DataNotification,
  NotificationHooks,
  ProviderApi,
  ProviderNotification,
} from '../../provider-kit/api.ts';
import { constantTimeEqual } from '../../provider-kit/signatures.ts';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../model/time.ts';
import { HUAWEI_API, HUAWEI_CHUNK_DAYS } from './data-source.ts';

export const huaweiApi: ProviderApi = {
  requestWindows: [
    { requests: 20, seconds: 1 },
    { requests: 20_000, seconds: 3600 },
  ],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: HUAWEI_CHUNK_DAYS,
  // A notification names the span of changed data; record lists take at most 31 days.
  notificationSpanSeconds: 31 * 86_400,
  async revoke({ http }) {
    const appId = http.client?.clientId;
    if (!appId) return;
    await http.json({
      url: `${HUAWEI_API}/consents/${encodeURIComponent(appId)}`,
      method: 'DELETE',
      query: { deleteData: 'false' },
      absentOn: [401, 404],
    });
  },
};

type Event = {
  openId?: unknown;
  eventType?: unknown;
  eventTime?: unknown;
  metaData?: { startTime?: unknown; endTime?: unknown } | null;
};

const text = (value: unknown) =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' && Number.isFinite(value)
      ? String(value)
      : null;
const millis = (value: unknown) => {
  const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : null;
};
const dateAt = (ms: number) => dayNumberToIsoDate(Math.floor(ms / MS_PER_DAY));

function parseEvent(event: Event): ProviderNotification {
  const openId = text(event?.openId);
  const type = text(event?.eventType) ?? 'an event without eventType';
  if (!openId) return { kind: 'ignored', reason: `${type} without openId` };
  if (type === 'USER_EVENT$REVOKE_ALL' || type === 'USER_EVENT$DELETE_USER')
    return { kind: 'revoked', providerUserId: openId };
  const [category, action] = type.split('$');
  if (!category?.endsWith('_EVENT') || category === 'USER_EVENT' || !action)
    return { kind: 'ignored', reason: `event ${type}` };
  const start = millis(event.metaData?.startTime);
  const end = millis(event.metaData?.endTime) ?? start;
  if (start === null || end === null || end < start)
    return { kind: 'ignored', reason: `${type} without a time span` };
  const dataKind =
    category === 'ACTIVITY_RECORD_EVENT'
      ? 'activity'
      : category.includes('HEALTH_RECORD')
        ? 'sleep'
        : 'samples';
  return {
    kind: 'data',
    providerUserId: openId,
    dataKind,
    objectId: `${start}-${end}`,
    action: action === 'DELETE' ? 'delete' : 'update',
    eventTime: text(event.eventTime),
    span: { start: new Date(start).toISOString(), end: new Date(end).toISOString() },
  };
}

export const huaweiNotifications: NotificationHooks = {
  handshake: () => null,

  verify({ rawBody, headers, secret }) {
    if (!secret) return 'unconfigured';
    let event: Event;
    try {
      event = JSON.parse(rawBody.toString('utf8')) as Event;
    } catch {
      return 'invalid';
    }
    const provided = headers['x-notification-signature'];
    const openId = text(event?.openId);
    const type = text(event?.eventType);
    const time = text(event?.eventTime);
    if (typeof provided !== 'string' || !openId || !type || !time) return 'invalid';
    const expected = createHmac('sha256', Buffer.from(secret, 'base64'))
      .update(`${openId}_${type}_${time}`, 'utf8')
      .digest('base64');
    return constantTimeEqual(expected, provided.trim()) ? 'valid' : 'invalid';
  },

  parse(rawBody) {
    const body = JSON.parse(rawBody.toString('utf8')) as unknown;
    // One event a request; a list is read the same way.
    return (Array.isArray(body) ? (body as Event[]) : [body as Event]).map(parseEvent);
  },

  async locate(notification: DataNotification) {
    // The span as the sync clamped it (to the declared maximum and the connection's lifetime).
    const start = notification.span ? Date.parse(notification.span.start) : Number.NaN;
    const end = notification.span ? Date.parse(notification.span.end) : Number.NaN;
    if (Number.isNaN(start) || Number.isNaN(end)) return null;
    // Records are placed in their own zones (at most 14 h from UTC): a day either side.
    const startDate = addDays(dateAt(start), -1);
    const endDate = addDays(dateAt(end), 2);
    if (notification.dataKind === 'activity')
      return { types: ['activity'], startDate, endDate, deleted: notification.action === 'delete' };
    if (notification.dataKind === 'sleep') return { types: ['sleep'], startDate, endDate };
    return { types: ['daily', 'body'], startDate, endDate };
  },
};
