// Oura's API behaviour and push notifications (docs/providers.md#oura): 5,000 requests per
// 5 minutes; webhook subscriptions per (event_type, data_type), verified by a GET challenge,
// renewed before they expire; events signed with HMAC-SHA256(client secret, timestamp + body),
// upper-case hex. Events only say what changed; the data is fetched again by day.
import { typesAffectedBy } from '../../provider-kit/define.ts';
import { constantTimeEqual, headerOf, hmacMatches, isFresh } from '../../provider-kit/signatures.ts';
import type { NotificationHooks, ProviderApi, SubscriptionRecord } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { collectionPath, OURA_CHUNK_DAYS } from './data-source.ts';
import { ouraNormalizers } from './normalize/index.ts';

const SUBSCRIPTIONS_URL = 'https://api.ouraring.com/v2/webhook/subscription';
/** Every collection the normalizers read that Oura can notify about. */
const SUBSCRIBED_KINDS = [
  'workout',
  'session',
  'sleep',
  'daily_activity',
  'daily_sleep',
  'daily_readiness',
  'daily_spo2',
  'daily_stress',
  'vo2_max',
  'tag',
  'enhanced_tag',
] as const;
const SUBSCRIBED_EVENTS = ['create', 'update'] as const;

export const ouraApi: ProviderApi = {
  requestWindows: [{ requests: 5000, seconds: 300 }],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: OURA_CHUNK_DAYS,
  rateLimit(headers, status, now) {
    if (status !== 429) return null;
    const reset = Number(headers.get('x-ratelimit-reset'));
    const retryAfterSeconds =
      Number.isFinite(reset) && reset > 0 ? Math.max(1, Math.ceil(reset - now.getTime() / 1000)) : null;
    return { retryAfterSeconds, exhausted: true };
  },
};

type OuraEvent = {
  event_type?: unknown;
  data_type?: unknown;
  object_id?: unknown;
  user_id?: unknown;
  event_time?: unknown;
};
type OuraSubscription = {
  id: string;
  callback_url: string;
  event_type: string;
  data_type: string;
  expiration_time?: string;
};

const appHeaders = (client: { clientId: string; clientSecret: string }) => ({
  'x-client-id': client.clientId,
  'x-client-secret': client.clientSecret,
});

const expiryOf = (subscription: OuraSubscription) =>
  subscription.expiration_time ? new Date(subscription.expiration_time) : null;

export const ouraNotifications: NotificationHooks = {
  handshake(query, verifyToken) {
    const token = query.get('verification_token');
    const challenge = query.get('challenge');
    if (!token || !challenge || !constantTimeEqual(token, verifyToken)) return null;
    return { body: { challenge } };
  },

  verify({ headers, rawBody, secret, now }) {
    if (!secret) return 'unconfigured';
    const timestamp = headerOf(headers['x-oura-timestamp']);
    if (!timestamp || !/^\d+$/.test(timestamp)) return 'invalid';
    // Seconds, though a millisecond stamp is accepted too.
    const stampMs = timestamp.length > 11 ? Number(timestamp) : Number(timestamp) * 1000;
    if (!isFresh(stampMs, now)) return 'invalid';
    const message = Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]);
    const valid = hmacMatches({
      key: secret,
      message,
      provided: headers['x-oura-signature'],
      encoding: 'hex',
      ignoreCase: true,
    });
    return valid ? 'valid' : 'invalid';
  },

  parse(rawBody) {
    const event = JSON.parse(rawBody.toString('utf8')) as OuraEvent;
    const { event_type: action, data_type: kind, object_id: objectId, user_id: userId } = event;
    if (typeof kind !== 'string' || typeof objectId !== 'string' || typeof userId !== 'string') {
      return [{ kind: 'ignored', reason: 'event without data_type, object_id or user_id' }];
    }
    if (action !== 'create' && action !== 'update' && action !== 'delete') {
      return [{ kind: 'ignored', reason: `event_type ${String(action)}` }];
    }
    return [
      {
        kind: 'data',
        providerUserId: userId,
        dataKind: kind,
        objectId,
        action,
        eventTime: typeof event.event_time === 'string' ? event.event_time : null,
      },
    ];
  },

  async locate(notification, http) {
    const types = typesAffectedBy(ouraNormalizers, notification.dataKind);
    if (types.length === 0) return null;
    // The document names its day; a deleted one is placed by the event's time instead.
    const document =
      notification.action === 'delete'
        ? null
        : await http.json<{ day?: unknown }>({
            url: `${collectionPath(notification.dataKind)}/${encodeURIComponent(notification.objectId)}`,
            absentOn: [403, 404],
          });
    const day =
      typeof document?.day === 'string' && isIsoDate(document.day)
        ? document.day
        : (notification.eventTime?.slice(0, 10) ?? null);
    if (!day || !isIsoDate(day)) return null;
    return { types, startDate: addDays(day, -1), endDate: addDays(day, 2) };
  },

  async subscribe({ http, callbackUrl, verifyToken }) {
    const client = http.client;
    if (!client) throw new Error('OURA_CLIENT_ID and OURA_CLIENT_SECRET are needed to subscribe');
    const headers = appHeaders(client);
    const existing =
      (await http.json<OuraSubscription[]>({ url: SUBSCRIPTIONS_URL, auth: 'app', headers })) ?? [];
    const records: SubscriptionRecord[] = [];
    for (const dataType of SUBSCRIBED_KINDS) {
      for (const eventType of SUBSCRIBED_EVENTS) {
        let subscription = existing.find(
          (candidate) =>
            candidate.callback_url === callbackUrl &&
            candidate.data_type === dataType &&
            candidate.event_type === eventType,
        );
        // Oura verifies the callback (GET challenge) before it answers this.
        subscription ??=
          (await http.json<OuraSubscription>({
            url: SUBSCRIPTIONS_URL,
            method: 'POST',
            auth: 'app',
            headers,
            json: {
              callback_url: callbackUrl,
              verification_token: verifyToken,
              event_type: eventType,
              data_type: dataType,
            },
          })) ?? undefined;
        if (!subscription) throw new Error(`Oura did not create the ${eventType}/${dataType} subscription`);
        records.push({ externalId: subscription.id, dataType, eventType, expiresAt: expiryOf(subscription) });
      }
    }
    return records;
  },

  async renew({ http, externalId }) {
    const client = http.client;
    if (!client) throw new Error('OURA_CLIENT_ID and OURA_CLIENT_SECRET are needed to renew');
    const renewed = await http.json<OuraSubscription>({
      url: `${SUBSCRIPTIONS_URL}/renew/${encodeURIComponent(externalId)}`,
      method: 'PUT',
      auth: 'app',
      headers: appHeaders(client),
    });
    return renewed ? expiryOf(renewed) : null;
  },
};
