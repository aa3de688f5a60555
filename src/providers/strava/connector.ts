// Strava's API behaviour and push events (docs/providers.md#strava). Limits are per
// application, reported on every answer as "<15-minute>,<daily>" pairs (X-RateLimit-* overall,
// X-ReadRateLimit-* for reads); 15-minute windows reset at :00/:15/:30/:45, daily ones at
// midnight UTC. One push subscription per application, validated with hub.challenge. Events
// carry no signature, so a POST is accepted only when it names the subscription Tributary holds.
import { constantTimeEqual } from '../../provider-kit/signatures.ts';
import type { NotificationHooks, ProviderApi, RateLimitSignal } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { STRAVA_API, STRAVA_CHUNK_DAYS } from './data-source.ts';
import { parseStravaJson } from './normalize/index.ts';

const QUARTER_HOUR_S = 900;
const DAY_S = 86_400;

function pair(value: string | null): [number, number] | null {
  const parts = (value ?? '').split(',').map((part) => Number(part.trim()));
  return parts.length === 2 && parts.every(Number.isFinite) ? [parts[0] as number, parts[1] as number] : null;
}

/** Seconds until the 15-minute or the daily window of `now` rolls over. */
const untilNext = (now: Date, windowSeconds: number) =>
  windowSeconds - (Math.floor(now.getTime() / 1000) % windowSeconds);

export function stravaRateLimit(headers: Headers, status: number, now: Date): RateLimitSignal | null {
  let retryAfterSeconds = 0;
  for (const [limitHeader, usageHeader] of [
    ['x-ratelimit-limit', 'x-ratelimit-usage'],
    ['x-readratelimit-limit', 'x-readratelimit-usage'],
  ] as const) {
    const limit = pair(headers.get(limitHeader));
    const usage = pair(headers.get(usageHeader));
    if (!limit || !usage) continue;
    if (usage[1] >= limit[1]) retryAfterSeconds = Math.max(retryAfterSeconds, untilNext(now, DAY_S));
    else if (usage[0] >= limit[0])
      retryAfterSeconds = Math.max(retryAfterSeconds, untilNext(now, QUARTER_HOUR_S));
  }
  if (retryAfterSeconds > 0) return { retryAfterSeconds, exhausted: true };
  // A 429 without telling headers: the 15-minute window is the likely one.
  return status === 429 ? { retryAfterSeconds: untilNext(now, QUARTER_HOUR_S), exhausted: true } : null;
}

export const stravaApi: ProviderApi = {
  // The read ("non-upload") limits: everything Tributary sends is a read.
  requestWindows: [
    { requests: 100, seconds: QUARTER_HOUR_S },
    { requests: 1000, seconds: DAY_S },
  ],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: STRAVA_CHUNK_DAYS,
  rateLimit: stravaRateLimit,
  // Strava answers 401 for a missing permission too (`<scope>_permission` / `missing`).
  isScopeRefusal: (status, body) => status === 401 && body.includes('_permission'),
  parseJson: parseStravaJson,
};

type StravaEvent = {
  object_type?: unknown;
  object_id?: unknown;
  aspect_type?: unknown;
  owner_id?: unknown;
  subscription_id?: unknown;
  event_time?: unknown;
  updates?: Record<string, unknown> | null;
};

const idText = (value: unknown) =>
  typeof value === 'number' || (typeof value === 'string' && value !== '') ? String(value) : null;

function eventOf(rawBody: Buffer): StravaEvent {
  const parsed = parseStravaJson(rawBody.toString('utf8'));
  return parsed !== null && typeof parsed === 'object' ? (parsed as StravaEvent) : {};
}

type StravaSubscription = { id: number | string; callback_url?: string };
const PUSH_URL = `${STRAVA_API}/push_subscriptions`;

export const stravaNotifications: NotificationHooks = {
  handshake(query, verifyToken) {
    const token = query.get('hub.verify_token');
    const challenge = query.get('hub.challenge');
    if (query.get('hub.mode') !== 'subscribe' || !token || !challenge) return null;
    return constantTimeEqual(token, verifyToken) ? { body: { 'hub.challenge': challenge } } : null;
  },

  verify({ rawBody, subscriptionIds }) {
    if (subscriptionIds.length === 0) return 'unconfigured';
    let subscription: string | null;
    try {
      subscription = idText(eventOf(rawBody).subscription_id);
    } catch {
      return 'invalid';
    }
    if (subscription === null) return 'invalid';
    return subscriptionIds.some((id) => constantTimeEqual(id, subscription)) ? 'valid' : 'invalid';
  },

  parse(rawBody) {
    const event = eventOf(rawBody);
    const owner = idText(event.owner_id);
    const objectId = idText(event.object_id);
    if (!owner || !objectId) return [{ kind: 'ignored', reason: 'event without owner_id or object_id' }];
    if (event.object_type === 'athlete') {
      // The athlete removed the application: access is gone.
      return event.updates?.authorized === 'false'
        ? [{ kind: 'revoked', providerUserId: owner }]
        : [{ kind: 'ignored', reason: 'athlete update' }];
    }
    const action = event.aspect_type;
    if (
      event.object_type !== 'activity' ||
      (action !== 'create' && action !== 'update' && action !== 'delete')
    ) {
      return [{ kind: 'ignored', reason: `${String(event.object_type)} ${String(action)}` }];
    }
    const eventTime =
      typeof event.event_time === 'number' ? new Date(event.event_time * 1000).toISOString() : null;
    return [{ kind: 'data', providerUserId: owner, dataKind: 'activity', objectId, action, eventTime }];
  },

  async locate(notification, http) {
    // A deleted activity cannot be fetched again (its stored record stays).
    if (notification.action === 'delete') return null;
    const activity = await http.json<{ start_date_local?: unknown }>({
      url: `${STRAVA_API}/activities/${encodeURIComponent(notification.objectId)}`,
      absentOn: [404],
    });
    // `start_date_local` is local wall time (written with a misleading Z): its date is the local day.
    const day =
      typeof activity?.start_date_local === 'string' ? activity.start_date_local.slice(0, 10) : null;
    if (!day || !isIsoDate(day)) return null;
    return { types: ['activity'], startDate: addDays(day, -1), endDate: addDays(day, 2) };
  },

  async subscribe({ http, callbackUrl, verifyToken }) {
    const client = http.client;
    if (!client) throw new Error('STRAVA_CLIENT_ID and STRAVA_CLIENT_SECRET are needed to subscribe');
    const credentials = { client_id: client.clientId, client_secret: client.clientSecret };
    const existing =
      (await http.json<StravaSubscription[]>({ url: PUSH_URL, auth: 'app', query: credentials })) ?? [];
    const ours = existing.find((subscription) => subscription.callback_url === callbackUrl);
    if (!ours && existing.length > 0) {
      throw new Error(
        `Strava allows one push subscription per application and it points elsewhere (${existing[0]?.callback_url})`,
      );
    }
    // Strava validates the callback (GET hub.challenge) before it answers.
    const created =
      ours ??
      (await http.json<StravaSubscription>({
        url: PUSH_URL,
        method: 'POST',
        auth: 'app',
        form: { ...credentials, callback_url: callbackUrl, verify_token: verifyToken },
      }));
    if (!created) throw new Error('Strava did not create the push subscription');
    return [{ externalId: String(created.id), dataType: null, eventType: null, expiresAt: null }];
  },
};
