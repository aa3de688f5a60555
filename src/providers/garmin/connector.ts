// Garmin Health / Activity API behaviour (providers-3.md §2, docs/providers.md#garmin).
// Limits are not published; a public integration keeps to 100 requests a minute [C], so that is
// the app-wide window here (operators override with GARMIN_REQUEST_BUDGET).
//
// Notifications: Garmin POSTs, per summary type, either a ping (`{"dailies":[{userId,
// uploadStartTimeInSeconds, uploadEndTimeInSeconds, callbackURL}]}`) or a push (the summaries
// themselves), plus `deregistrations` and `userPermissionsChange`. Nothing is signed; the only
// mark is the `garmin-client-id` header [C]. So they are handled as unsigned notifications (known
// accounts only, rate limited per sender, coalesced), and nothing in a body is believed as data:
// a ping's upload window is pulled from Garmin with the user's own token (the window is read
// from the callback URL, which is never fetched as given: it could point anywhere), a push is
// pulled as the last day of uploads, and a deregistration or permission change is confirmed by
// asking Garmin for the user's permissions with the user's token.
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
import { GARMIN_API, GARMIN_CHUNK_DAYS, SUMMARY_PATHS, type SummaryKind } from './data-source.ts';
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
};

const ACCOUNT_KINDS = ['deregistrations', 'userPermissionsChange'] as const;
const isSummaryKind = (kind: string): kind is SummaryKind => Object.hasOwn(SUMMARY_PATHS, kind);
/** A push says nothing about its upload window: the last day of uploads is pulled. */
const PUSH_WINDOW_SECONDS = 86_400;

const windowOf = (objectId: string): { start: number; end: number } | null => {
  const match = /^(\d+)-(\d+)$/.exec(objectId);
  if (!match) return null;
  const start = Number(match[1]);
  const end = Number(match[2]);
  return end >= start ? { start, end } : null;
};

const utcDay = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 10);

/** The upload window a ping names, from its fields or else its callback URL's query. */
function pingWindow(item: Record<string, unknown>): { start: number; end: number } | null {
  let start = item.uploadStartTimeInSeconds;
  let end = item.uploadEndTimeInSeconds;
  if ((typeof start !== 'number' || typeof end !== 'number') && typeof item.callbackURL === 'string') {
    try {
      const query = new URL(item.callbackURL).searchParams;
      start = Number(query.get('uploadStartTimeInSeconds'));
      end = Number(query.get('uploadEndTimeInSeconds'));
    } catch {
      return null;
    }
  }
  if (
    typeof start !== 'number' ||
    typeof end !== 'number' ||
    !Number.isInteger(start) ||
    !Number.isInteger(end)
  )
    return null;
  return end >= start && start >= 0 ? { start, end } : null;
}

function parseBody(rawBody: Buffer, now: Date): ProviderNotification[] {
  const body = JSON.parse(rawBody.toString('utf8')) as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
  const nowSeconds = Math.floor(now.getTime() / 1000);
  // One notification per account and kind, its window widened over the body's items.
  const found = new Map<string, DataNotification>();
  const out: ProviderNotification[] = [];
  for (const [kind, items] of Object.entries(body as Record<string, unknown>)) {
    const known = isSummaryKind(kind) || (ACCOUNT_KINDS as readonly string[]).includes(kind);
    if (!known || !Array.isArray(items)) {
      out.push({ kind: 'ignored', reason: `Garmin notification key ${kind}` });
      continue;
    }
    for (const item of items as unknown[]) {
      if (!item || typeof item !== 'object') continue;
      const record = item as Record<string, unknown>;
      if (typeof record.userId !== 'string' || record.userId === '') continue;
      let window = { start: nowSeconds, end: nowSeconds };
      if (isSummaryKind(kind)) {
        const isPing = 'callbackURL' in record || 'uploadStartTimeInSeconds' in record;
        const ping = isPing ? pingWindow(record) : null;
        if (isPing && !ping) continue;
        window = ping ?? { start: nowSeconds - PUSH_WINDOW_SECONDS, end: nowSeconds };
      }
      const key = `${record.userId}\u0000${kind}`;
      const next: DataNotification = {
        kind: 'data',
        providerUserId: record.userId,
        dataKind: kind,
        objectId: `${window.start}-${window.end}`,
        action: kind === 'deregistrations' ? 'delete' : 'update',
        eventTime: new Date(window.end * 1000).toISOString(),
      };
      const pending = found.get(key);
      found.set(key, pending ? coalesce(pending, next) : next);
    }
  }
  return [...out, ...found.values()];
}

/** Folds two notifications of one account and kind: the union of their upload windows. */
function coalesce(pending: DataNotification, next: DataNotification): DataNotification {
  const a = windowOf(pending.objectId);
  const b = windowOf(next.objectId);
  if (!a || !b) return next;
  const start = Math.min(a.start, b.start);
  const end = Math.max(a.end, b.end);
  return { ...next, objectId: `${start}-${end}`, eventTime: new Date(end * 1000).toISOString() };
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

  async locate(notification, http) {
    if (notification.dataKind === 'deregistrations' || notification.dataKind === 'userPermissionsChange') {
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
    const window = windowOf(notification.objectId);
    if (!window) return null;
    const types = typesAffectedBy(garminNormalizers, notification.dataKind);
    if (types.length === 0) return null;
    return { types, startDate: utcDay(window.start), endDate: addDays(utcDay(window.end), 1) };
  },
};
