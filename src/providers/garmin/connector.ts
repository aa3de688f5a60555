// Garmin Health / Activity API behaviour (providers-3.md §2, docs/providers.md#garmin).
// Limits are not published; a public integration keeps to 100 requests a minute [C], so that is
// the app-wide window here (operators override with GARMIN_REQUEST_BUDGET).
//
// Notifications (Health API §4–§5): Garmin POSTs, per summary type, either pings
// (`{"epochs":[{userId, callbackURL}]}`; the callback names an upload window of at most 24 h and a
// pull token) or pushes (the summaries themselves, the same data a callback would return), plus
// `deregistrations` and `userPermissionsChange`. Nothing is signed; the only mark is the
// `garmin-client-id` header. So they are handled as unsigned notifications (known accounts only,
// rate limited per sender, coalesced per account and unified type so a sync's pings of a day and
// its companions are pulled and normalized together). A callback is pulled only when the sync
// has checked it is Garmin's own API on a summary path (`notificationCallbacks`) and its upload
// window is at most a day inside the connection's lifetime (`notificationSpanSeconds`); a
// deregistration or permission change is confirmed by asking Garmin with the user's token.
import { typesAffectedBy } from '../../provider-kit/define.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import { constantTimeEqual, headerOf } from '../../provider-kit/signatures.ts';
import type {
  DataNotification,
  NotificationHooks,
  ProviderApi,
  ProviderNotification,
} from '../../provider-kit/api.ts';
import { addDays } from '../../model/time.ts';
import {
  GARMIN_API,
  GARMIN_CHUNK_DAYS,
  type GarminNotified,
  PULL_WINDOW_SECONDS,
  SUMMARY_PATHS,
  type SummaryKind,
} from './data-source.ts';
import { garminNormalizers } from './normalize/index.ts';

export const GARMIN_PERMISSIONS_URL = `${GARMIN_API}/user/permissions`;

export const garminApi: ProviderApi = {
  requestWindows: [{ requests: 100, seconds: 60 }],
  userShare: 0.5,
  backfillDays: 90,
  backfillChunkDays: GARMIN_CHUNK_DAYS,
  // A 403 is a summary type the user did not share (HEALTH_EXPORT / ACTIVITY_EXPORT unticked);
  // a dead token is a 401.
  isScopeRefusal: (status) => status === 403,
  notificationSpanSeconds: PULL_WINDOW_SECONDS,
  notificationCallbacks: Object.values(SUMMARY_PATHS).map((path) => `${GARMIN_API}/${path}`),
  // One sync pings each summary type separately: a day's summary and its epochs, stress and pulse
  // ox are pulled together when their pings arrive within these seconds of each other.
  notificationGatherSeconds: 5,
};

const ACCOUNT_KINDS = ['deregistrations', 'userPermissionsChange'] as const;
const isSummaryKind = (kind: string): kind is SummaryKind => Object.hasOwn(SUMMARY_PATHS, kind);
const KIND_OF_PATH = new Map<string, SummaryKind>(
  Object.entries(SUMMARY_PATHS).map(([kind, path]) => [path, kind as SummaryKind]),
);
/** The normalizer row a summary type belongs to (itself, or the row it is a companion of). */
const groupOf = (kind: SummaryKind): string =>
  Object.entries(garminNormalizers).find(
    ([name, row]) => name === kind || (row.companions as readonly string[]).includes(kind),
  )?.[0] ?? kind;
/** Callbacks one pending refetch holds at most (a sync pings each type once). */
const MAX_CALLBACKS = 100;

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();
const utcDay = (instant: string) => instant.slice(0, 10);

/** The upload window a callback URL names, or null when it names none. */
function callbackWindow(callback: string): { start: number; end: number } | null {
  let query: URLSearchParams;
  try {
    query = new URL(callback).searchParams;
  } catch {
    return null;
  }
  const start = Number(query.get('uploadStartTimeInSeconds') ?? Number.NaN);
  const end = Number(query.get('uploadEndTimeInSeconds') ?? Number.NaN);
  // Epoch seconds (Garmin refuses milliseconds): anything past 1e11 is not a Garmin window.
  const seconds = (value: number) => Number.isSafeInteger(value) && value >= 0 && value < 1e11;
  if (!seconds(start) || !seconds(end) || end < start) return null;
  return { start, end };
}

/** One summary item of a notification body: a ping (callback URL) or a pushed summary. */
function itemNotification(
  kind: SummaryKind,
  item: Record<string, unknown>,
  userId: string,
  now: Date,
): DataNotification | null {
  const base = {
    kind: 'data' as const,
    providerUserId: userId,
    dataKind: groupOf(kind),
    action: 'update' as const,
  };
  if (typeof item.callbackURL === 'string') {
    const window = callbackWindow(item.callbackURL);
    if (!window) return null;
    return {
      ...base,
      objectId: `${kind}:${window.start}-${window.end}`,
      eventTime: iso(window.end),
      span: { start: iso(window.start), end: iso(window.end) },
      callbacks: [item.callbackURL],
    };
  }
  if (typeof item.summaryId !== 'string' && typeof item.summaryId !== 'number') return null;
  // Older pushes carry the user's access token beside the data (HAPI 1.0.9 began retiring it): never kept.
  const { userAccessToken: _token, ...summary } = item;
  return {
    ...base,
    objectId: `${kind}:${String(item.summaryId)}`,
    eventTime: now.toISOString(),
    inline: { [kind]: [summary] },
  };
}

function parseBody(rawBody: Buffer, now: Date): ProviderNotification[] {
  const body = JSON.parse(rawBody.toString('utf8')) as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
  // One notification per account and unified type, folded over the body's items.
  const found = new Map<string, DataNotification>();
  const out: ProviderNotification[] = [];
  for (const [kind, items] of Object.entries(body as Record<string, unknown>)) {
    const account = (ACCOUNT_KINDS as readonly string[]).includes(kind);
    if ((!isSummaryKind(kind) && !account) || !Array.isArray(items)) {
      out.push({ kind: 'ignored', reason: `Garmin notification key ${kind}` });
      continue;
    }
    for (const item of items as unknown[]) {
      if (!item || typeof item !== 'object') continue;
      const record = item as Record<string, unknown>;
      if (typeof record.userId !== 'string' || record.userId === '') continue;
      const next: DataNotification | null = isSummaryKind(kind)
        ? itemNotification(kind, record, record.userId, now)
        : {
            kind: 'data',
            providerUserId: record.userId,
            dataKind: kind,
            objectId: kind,
            action: kind === 'deregistrations' ? 'delete' : 'update',
            eventTime: now.toISOString(),
          };
      if (!next) continue;
      const key = `${record.userId}\u0000${next.dataKind}`;
      const pending = found.get(key);
      found.set(key, pending ? coalesce(pending, next) : next);
    }
  }
  return [...out, ...found.values()];
}

/** Pushed summaries of both, one per `summaryId` (the later copy wins: Health API §6.1). */
function mergeInline(
  a: DataNotification['inline'],
  b: DataNotification['inline'],
): DataNotification['inline'] {
  if (!a || !b) return a ?? b;
  const merged: Record<string, unknown[]> = {};
  for (const kind of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const byId = new Map<string, unknown>();
    for (const item of [...(a[kind] ?? []), ...(b[kind] ?? [])]) {
      const id = (item as { summaryId?: unknown }).summaryId;
      byId.set(typeof id === 'string' || typeof id === 'number' ? String(id) : `#${byId.size}`, item);
    }
    merged[kind] = [...byId.values()];
  }
  return merged;
}

/** Folds two notifications of one account and type: spans joined, callbacks and pushes kept. */
function coalesce(pending: DataNotification, next: DataNotification): DataNotification {
  const span =
    pending.span && next.span
      ? {
          start: pending.span.start < next.span.start ? pending.span.start : next.span.start,
          end: pending.span.end > next.span.end ? pending.span.end : next.span.end,
        }
      : (next.span ?? pending.span);
  const callbacks = [...new Set([...(pending.callbacks ?? []), ...(next.callbacks ?? [])])].slice(
    0,
    MAX_CALLBACKS,
  );
  const inline = mergeInline(pending.inline, next.inline);
  const { span: _span, callbacks: _callbacks, inline: _inline, ...rest } = next;
  return {
    ...rest,
    ...(span ? { span } : {}),
    ...(callbacks.length > 0 ? { callbacks } : {}),
    ...(inline ? { inline } : {}),
  };
}

/** The callbacks worth pulling: a summary path, an upload window of at most a day inside the span. */
function pullsOf(notification: DataNotification): GarminNotified['pulls'] {
  const span = notification.span;
  const pulls: { kind: SummaryKind; url: string }[] = [];
  for (const callback of notification.callbacks ?? []) {
    const kind = KIND_OF_PATH.get(new URL(callback).pathname.split('/').pop() ?? '');
    const window = callbackWindow(callback);
    if (!kind || !window || window.end - window.start > PULL_WINDOW_SECONDS) continue;
    if (span && (iso(window.start) < span.start || iso(window.end) > span.end)) continue;
    pulls.push({ kind, url: callback });
  }
  return pulls;
}

export const garminNotifications: NotificationHooks = {
  handshake: () => null,

  verify({ headers, clientId }) {
    if (!clientId) return 'unconfigured';
    const named = headerOf(headers['garmin-client-id']);
    return named && constantTimeEqual(named, clientId) ? 'valid' : 'invalid';
  },

  parse: parseBody,

  unsigned: { coalesce },

  accountKinds: ACCOUNT_KINDS,

  async locate(notification, http) {
    if ((ACCOUNT_KINDS as readonly string[]).includes(notification.dataKind)) {
      let granted: unknown;
      try {
        granted = await http.json({ url: GARMIN_PERMISSIONS_URL, absentOn: [403, 404] });
      } catch (error) {
        // The user's token no longer works: the registration is gone.
        if (error instanceof ProviderDataError && error.kind === 'unauthorized') return { access: 'revoked' };
        throw error;
      }
      const list = Array.isArray(granted)
        ? granted.filter((item): item is string => typeof item === 'string')
        : null;
      if (notification.dataKind === 'deregistrations')
        return list === null || list.length === 0 ? { access: 'revoked' } : null;
      return list === null ? null : { access: 'permissions', granted: list };
    }
    const types = typesAffectedBy(garminNormalizers, notification.dataKind);
    const pulls = pullsOf(notification);
    const inline = notification.inline ?? {};
    if (types.length === 0 || (pulls.length === 0 && Object.keys(inline).length === 0)) return null;
    const pushedAt = Object.keys(inline).length > 0 ? notification.eventTime : null;
    const notified: GarminNotified = { pulls, inline, ...(pushedAt ? { pushedAt } : {}) };
    // The days only label the refetch: what is fetched is what the notification names.
    const last = notification.span?.end ?? notification.eventTime;
    if (!last) return null;
    const first = notification.span?.start ?? last;
    return { types, startDate: utcDay(first), endDate: addDays(utcDay(last), 1), notified };
  },
};
