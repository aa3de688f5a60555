// Wahoo Cloud API behaviour (docs/providers.md#wahoo; providers-3.md §4): production limits of
// 200 requests per 5 minutes, 1000 per hour and 5000 per day per application, reported in
// X-RateLimit-Limit / -Remaining / -Reset. One webhook URL per app, set in Wahoo's portal;
// each POST is a `workout_summary` event carrying the app's `webhook_token` (no HMAC): the
// token is compared in constant time with WAHOO_WEBHOOK_SECRET. Updates re-send the same
// summary (upsert by workout id); deletions are not signalled.
import { constantTimeEqual } from '../../provider-kit/signatures.ts';
import type { NotificationHooks, ProviderApi, RateLimitSignal } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { WAHOO_CHUNK_DAYS } from './data-source.ts';

/** Seconds until the spent window resets: Wahoo's Reset is seconds, or an epoch for some clients [?]. */
function resetSeconds(value: string | null, now: Date): number | null {
  const reset = Number(value);
  if (value === null || !Number.isFinite(reset) || reset <= 0) return null;
  return reset > 1e9 ? Math.max(1, Math.ceil(reset - now.getTime() / 1000)) : Math.ceil(reset);
}

export function wahooRateLimit(headers: Headers, status: number, now: Date): RateLimitSignal | null {
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = resetSeconds(headers.get('x-ratelimit-reset'), now);
  if (remaining !== null && Number(remaining) <= 0)
    return { retryAfterSeconds: reset ?? 300, exhausted: true };
  return status === 429 ? { retryAfterSeconds: reset ?? 300, exhausted: true } : null;
}

export const wahooApi: ProviderApi = {
  requestWindows: [
    { requests: 200, seconds: 300 },
    { requests: 1000, seconds: 3600 },
    { requests: 5000, seconds: 86_400 },
  ],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: WAHOO_CHUNK_DAYS,
  rateLimit: wahooRateLimit,
};

type WahooEvent = {
  event_type?: unknown;
  webhook_token?: unknown;
  user?: { id?: unknown } | null;
  workout_summary?: { id?: unknown; workout?: { id?: unknown; starts?: unknown } | null } | null;
};

function eventOf(rawBody: Buffer): WahooEvent {
  const parsed: unknown = JSON.parse(rawBody.toString('utf8'));
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as WahooEvent)
    : {};
}

const idText = (value: unknown) =>
  typeof value === 'number' || (typeof value === 'string' && value !== '') ? String(value) : null;

export const wahooNotifications: NotificationHooks = {
  // The URL is entered in Wahoo's portal: there is no handshake.
  handshake: () => null,

  verify({ rawBody, secret }) {
    if (!secret) return 'unconfigured';
    let token: unknown;
    try {
      token = eventOf(rawBody).webhook_token;
    } catch {
      return 'invalid';
    }
    return typeof token === 'string' && constantTimeEqual(token, secret) ? 'valid' : 'invalid';
  },

  parse(rawBody) {
    const event = eventOf(rawBody);
    if (event.event_type !== 'workout_summary')
      return [{ kind: 'ignored', reason: `event ${String(event.event_type)}` }];
    const userId = idText(event.user?.id);
    const workout = event.workout_summary?.workout;
    const objectId = idText(workout?.id) ?? idText(event.workout_summary?.id);
    if (!userId || !objectId) return [{ kind: 'ignored', reason: 'workout_summary without user or workout' }];
    return [
      {
        kind: 'data',
        providerUserId: userId,
        dataKind: 'workout',
        objectId,
        action: 'update',
        eventTime: typeof workout?.starts === 'string' ? workout.starts : null,
      },
    ];
  },

  async locate(notification) {
    // The event names the workout's start (UTC): its local day is that day or a neighbour.
    const day = (notification.eventTime ?? '').slice(0, 10);
    if (!isIsoDate(day)) return null;
    return { types: ['activity'], startDate: addDays(day, -1), endDate: addDays(day, 2) };
  },
};
