// Polar AccessLink v3 behaviour (docs/providers.md#polar): a user is registered with the app
// (POST /v3/users) after consent before any data is served; limits per 15 minutes and per day
// grow with the registered users and are reported in RateLimit-Usage / -Limit / -Reset as
// "short, long" pairs. One webhook per client, managed with Basic client credentials: Polar
// PINGs it on creation and signs every event with hex HMAC-SHA256 of the body under the
// `signature_secret_key` it shows once, in the creation answer (POLAR_WEBHOOK_SECRET).
import { typesAffectedBy } from '../../provider-kit/define.ts';
import { headerOf, hmacMatches } from '../../provider-kit/signatures.ts';
import type {
  NotificationHooks,
  ProviderApi,
  ProviderHttp,
  RateLimitSignal,
} from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { POLAR_API, POLAR_CHUNK_DAYS } from './data-source.ts';
import { polarNormalizers } from './normalize/index.ts';

const pair = (value: string | null): number[] => (value ?? '').split(',').map((part) => Number(part.trim()));

/** The window (short or long) that is used up, and when it resets. */
function polarRateLimit(headers: Headers, status: number): RateLimitSignal | null {
  const usage = pair(headers.get('ratelimit-usage'));
  const limit = pair(headers.get('ratelimit-limit'));
  const reset = pair(headers.get('ratelimit-reset'));
  const spent = [0, 1].find(
    (index) => Number.isFinite(usage[index]) && (usage[index] ?? 0) >= (limit[index] ?? Infinity),
  );
  const resetOf = (index: number) =>
    Number.isFinite(reset[index]) ? Math.max(1, Math.ceil(reset[index] ?? 0)) : null;
  if (spent !== undefined) return { retryAfterSeconds: resetOf(spent), exhausted: true };
  if (status === 429) return { retryAfterSeconds: resetOf(0) ?? 60, exhausted: true };
  return null;
}

const basicAuth = (http: ProviderHttp): Record<string, string> => {
  const client = http.client;
  if (!client) throw new Error('POLAR_CLIENT_ID and POLAR_CLIENT_SECRET are required to manage the webhook');
  return {
    authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
  };
};

export const polarApi: ProviderApi = {
  // Polar's figures for an app with few users; they grow by 20 and 100 per registered user.
  requestWindows: [
    { requests: 500, seconds: 900 },
    { requests: 5000, seconds: 86_400 },
  ],
  userShare: 0.25,
  // Exercises and sleep are served for the last 30 / 28 days; daily activity for 365.
  backfillDays: 28,
  backfillChunkDays: POLAR_CHUNK_DAYS,
  rateLimit: polarRateLimit,
  async onConnected({ http, user }) {
    // Registration is what makes Polar serve the user's data; 409 means it is already done.
    await http.json({
      url: `${POLAR_API}/users`,
      method: 'POST',
      json: { 'member-id': user.id },
      absentOn: [409],
    });
  },
};

/** Polar's event names, as the normalizer table's kinds. */
const KINDS: Readonly<Record<string, string>> = {
  EXERCISE: 'exercise',
  SLEEP: 'sleep',
  CONTINUOUS_HEART_RATE: 'continuous_heart_rate',
  ACTIVITY_SUMMARY: 'activity_summary',
  PHYSICAL_INFORMATION: 'physical_information',
};
const EVENTS = Object.keys(KINDS);

type PolarEvent = {
  event?: unknown;
  user_id?: unknown;
  entity_id?: unknown;
  date?: unknown;
  timestamp?: unknown;
};

const isPing = (headers: Record<string, string | string[] | undefined>, rawBody: Buffer) => {
  if (headerOf(headers['polar-webhook-event']) === 'PING') return true;
  try {
    return (JSON.parse(rawBody.toString('utf8')) as PolarEvent).event === 'PING';
  } catch {
    return false;
  }
};

export const polarNotifications: NotificationHooks = {
  handshake: () => null,

  verify({ headers, rawBody, secret }) {
    // The PING on creation is signed with a key nobody here knows yet; it triggers nothing.
    if (isPing(headers, rawBody) && rawBody.length < 256) return 'valid';
    if (!secret) return 'unconfigured';
    const valid = hmacMatches({
      key: secret,
      message: rawBody,
      provided: headers['polar-webhook-signature'],
      encoding: 'hex',
      ignoreCase: true,
    });
    return valid ? 'valid' : 'invalid';
  },

  parse(rawBody) {
    const event = JSON.parse(rawBody.toString('utf8')) as PolarEvent;
    const kind = typeof event.event === 'string' ? KINDS[event.event] : undefined;
    const userId =
      typeof event.user_id === 'number' || typeof event.user_id === 'string' ? String(event.user_id) : null;
    const date = typeof event.date === 'string' && isIsoDate(event.date) ? event.date : null;
    const entity = typeof event.entity_id === 'string' && event.entity_id !== '' ? event.entity_id : null;
    if (!kind || !userId) return [{ kind: 'ignored', reason: `event ${String(event.event)}` }];
    return [
      {
        kind: 'data',
        providerUserId: userId,
        dataKind: kind,
        objectId: entity ?? date ?? '',
        action: 'update',
        eventTime: date ?? (typeof event.timestamp === 'string' ? event.timestamp : null),
      },
    ];
  },

  async locate(notification, http) {
    let day: string | null = null;
    if (notification.dataKind === 'exercise') {
      const exercise = await http.json<{ start_time?: unknown }>({
        url: `${POLAR_API}/exercises/${encodeURIComponent(notification.objectId)}`,
        absentOn: [404],
      });
      day = typeof exercise?.start_time === 'string' ? exercise.start_time.slice(0, 10) : null;
    } else {
      day = (notification.eventTime ?? '').slice(0, 10);
    }
    if (!day || !isIsoDate(day)) return null;
    return {
      types: typesAffectedBy(polarNormalizers, notification.dataKind),
      startDate: addDays(day, -1),
      endDate: addDays(day, 2),
    };
  },

  async subscribe({ http, callbackUrl }) {
    const headers = basicAuth(http);
    const created = await http.json<{ data?: { id?: string } }>({
      url: `${POLAR_API}/webhooks`,
      method: 'POST',
      auth: 'app',
      headers,
      json: { events: EVENTS, url: callbackUrl },
      absentOn: [409],
    });
    let id = created?.data?.id ?? null;
    if (!id) {
      // One webhook per client: an existing one is pointed here instead.
      const existing = await http.json<{ data?: { id?: string }[] }>({
        url: `${POLAR_API}/webhooks`,
        auth: 'app',
        headers,
      });
      id = existing?.data?.[0]?.id ?? null;
      if (!id) throw new Error('Polar reports a webhook but lists none');
      await http.json({
        url: `${POLAR_API}/webhooks/${id}`,
        method: 'PATCH',
        auth: 'app',
        headers,
        json: { events: EVENTS, url: callbackUrl },
      });
    }
    return [{ externalId: id, dataType: null, eventType: EVENTS.join(','), expiresAt: null }];
  },
};
