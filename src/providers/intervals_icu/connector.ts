// How the Intervals.icu API behaves, as data and hooks.
//
// Limits: "10/s per IP address with a short burst multiplier" (the author, forum t/609 p.24);
// nothing per day is published, so the hourly window is a courtesy an operator can change
// (INTERVALS_ICU_REQUEST_BUDGET). Errors are JSON `{status, error}`.
//
// Tokens: the token answer has no `expires_in` and no `refresh_token` (OAuth forum post t/2759):
// access tokens last until the athlete disconnects the app, so there is no refresh; a 401 means
// the grant is gone. After consent the profile is read once (`GET /api/v1/athlete/0`) to check
// that the grant reads the athlete it names (idempotent).
//
// Webhooks (configured per app in Intervals.icu's "Manage App" page, so nothing is subscribed
// through the API): a POST of `{secret, events: [{athlete_id, type, timestamp, …}]}`; the body's
// `secret` is the one set in Manage App (INTERVALS_ICU_WEBHOOK_SECRET), compared in constant
// time. Types read here: ACTIVITY_UPLOADED / ACTIVITY_ANALYZED / ACTIVITY_UPDATED (the activity
// inline), ACTIVITY_DELETED, WELLNESS_UPDATED (`records`, one per day), CALENDAR_UPDATED
// (`events`, `deleted_events`), APP_SCOPE_CHANGED (`deauthorized: true` when access is withdrawn).
import { constantTimeEqual } from '../../provider-kit/signatures.ts';
import type {
  DataNotification,
  NotificationHooks,
  ProviderApi,
  ProviderNotification,
} from '../../provider-kit/api.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { INTERVALS_ICU_API, INTERVALS_ICU_CHUNK_DAYS } from './data-source.ts';

export const intervalsIcuApi: ProviderApi = {
  requestWindows: [
    { requests: 10, seconds: 1 },
    { requests: 20_000, seconds: 3600 },
  ],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: INTERVALS_ICU_CHUNK_DAYS,
  async onConnected({ http, user }) {
    const athlete = await http.json<{ id?: unknown }>({ url: `${INTERVALS_ICU_API}/athlete/0` });
    if (user.providerUserId && athlete?.id !== undefined && String(athlete.id) !== user.providerUserId)
      throw new ProviderDataError('unauthorized', 'the grant reads another athlete than it named');
  },
};

type WebhookEvent = {
  athlete_id?: unknown;
  type?: unknown;
  timestamp?: unknown;
  activity?: { id?: unknown; start_date_local?: unknown } | null;
  records?: { id?: unknown }[] | null;
  events?: { id?: unknown; start_date_local?: unknown }[] | null;
  deleted_events?: { id?: unknown; start_date_local?: unknown }[] | null;
  deauthorized?: unknown;
};

const ACTIVITY_ACTIONS: Readonly<Record<string, 'create' | 'update' | 'delete'>> = {
  ACTIVITY_UPLOADED: 'create',
  ACTIVITY_ANALYZED: 'update',
  ACTIVITY_UPDATED: 'update',
  ACTIVITY_DELETED: 'delete',
};

const text = (value: unknown) =>
  typeof value === 'number' || (typeof value === 'string' && value !== '') ? String(value) : null;
const dateOf = (value: unknown) => {
  const day = typeof value === 'string' ? value.slice(0, 10) : '';
  return isIsoDate(day) ? day : null;
};

/** The local days a notification names, kept in its object id (`2026-04-15,2026-04-16`). */
const daysOf = (dates: readonly string[]) => [...new Set(dates)].sort().join(',');

/** The first and day-after-last of the days in an object id. */
function rangeOf(objectId: string): { startDate: string; endDate: string } | null {
  const days = objectId.split(',').filter(isIsoDate).sort();
  const first = days[0];
  const last = days[days.length - 1];
  return first && last ? { startDate: first, endDate: addDays(last, 1) } : null;
}

function parseEvent(event: WebhookEvent): ProviderNotification {
  const type = typeof event?.type === 'string' ? event.type : String(event?.type);
  const athlete = text(event?.athlete_id);
  if (!athlete) return { kind: 'ignored', reason: `${type} without athlete_id` };
  const activityAction = ACTIVITY_ACTIONS[type];
  if (activityAction) {
    const id = text(event.activity?.id);
    if (!id) return { kind: 'ignored', reason: `${type} without an activity id` };
    const day = dateOf(event.activity?.start_date_local);
    return {
      kind: 'data',
      providerUserId: athlete,
      dataKind: 'activity',
      objectId: id,
      action: activityAction,
      eventTime: day,
    };
  }
  if (type === 'WELLNESS_UPDATED') {
    const dates = (event.records ?? []).map((record) => dateOf(record?.id)).filter((day) => day !== null);
    if (dates.length === 0) return { kind: 'ignored', reason: 'WELLNESS_UPDATED without dated records' };
    return {
      kind: 'data',
      providerUserId: athlete,
      dataKind: 'wellness',
      objectId: daysOf(dates),
      action: 'update',
      eventTime: text(event.timestamp),
    };
  }
  if (type === 'CALENDAR_UPDATED') {
    const dates = [...(event.events ?? []), ...(event.deleted_events ?? [])]
      .map((entry) => dateOf(entry?.start_date_local))
      .filter((day) => day !== null);
    if (dates.length === 0) return { kind: 'ignored', reason: 'CALENDAR_UPDATED naming no dated events' };
    return {
      kind: 'data',
      providerUserId: athlete,
      dataKind: 'calendar',
      objectId: daysOf(dates),
      action: (event.deleted_events ?? []).length > 0 ? 'delete' : 'update',
      eventTime: text(event.timestamp),
    };
  }
  if (type === 'APP_SCOPE_CHANGED' && event.deauthorized === true)
    return { kind: 'revoked', providerUserId: athlete };
  return { kind: 'ignored', reason: `event ${type}` };
}

export const intervalsIcuNotifications: NotificationHooks = {
  handshake: () => null,

  verify({ rawBody, secret }) {
    if (!secret) return 'unconfigured';
    let given: unknown;
    try {
      given = (JSON.parse(rawBody.toString('utf8')) as { secret?: unknown })?.secret;
    } catch {
      return 'invalid';
    }
    return typeof given === 'string' && constantTimeEqual(given, secret) ? 'valid' : 'invalid';
  },

  parse(rawBody) {
    const body = JSON.parse(rawBody.toString('utf8')) as { events?: unknown };
    if (!Array.isArray(body?.events)) return [{ kind: 'ignored', reason: 'no events list' }];
    return (body.events as WebhookEvent[]).map(parseEvent);
  },

  async locate(notification: DataNotification) {
    if (notification.dataKind === 'activity') {
      const day = notification.eventTime ?? '';
      // ACTIVITY_DELETED names the activity: removed by its id (its summary_id), nothing to fetch.
      if (notification.action === 'delete') {
        const none = isIsoDate(day) ? day : '1970-01-01';
        return {
          types: [],
          startDate: none,
          endDate: none,
          removed: { types: ['activity'], ids: [notification.objectId] },
        };
      }
      if (!isIsoDate(day)) return null;
      return { types: ['activity'], startDate: addDays(day, -1), endDate: addDays(day, 2) };
    }
    const range = rangeOf(notification.objectId);
    if (!range) return null;
    if (notification.dataKind === 'wellness') return { types: ['daily', 'body', 'sleep'], ...range };
    if (notification.dataKind === 'calendar')
      return { types: ['plannedWorkout'], ...range, deleted: notification.action === 'delete' };
    return null;
  },
};
