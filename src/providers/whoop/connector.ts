// WHOOP's API behaviour and webhooks (docs/providers.md#whoop): 100 requests a minute and
// 10,000 a day per client, with X-RateLimit-Remaining / X-RateLimit-Reset (seconds) on every
// answer. The webhook URL is set in WHOOP's developer dashboard (no subscription API); events
// `{user_id, id, type, trace_id}` are signed with base64 HMAC-SHA256(client secret,
// X-WHOOP-Signature-Timestamp + raw body), the timestamp in milliseconds.
import { typesAffectedBy } from '../../provider-kit/define.ts';
import { headerOf, hmacMatches, isFresh } from '../../provider-kit/signatures.ts';
import type { NotificationHooks, ProviderApi, ProviderHttp } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { WHOOP_API, WHOOP_CHUNK_DAYS, WHOOP_PATHS } from './data-source.ts';
import { whoopNormalizers } from './normalize/index.ts';

export const whoopApi: ProviderApi = {
  requestWindows: [
    { requests: 100, seconds: 60 },
    { requests: 10_000, seconds: 86_400 },
  ],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: WHOOP_CHUNK_DAYS,
  rateLimit(headers, status) {
    const remaining = headers.get('x-ratelimit-remaining');
    const reset = Number(headers.get('x-ratelimit-reset'));
    const resetSeconds = Number.isFinite(reset) && reset >= 0 ? Math.max(1, Math.ceil(reset)) : null;
    if (status === 429) return { retryAfterSeconds: resetSeconds ?? 60, exhausted: true };
    return remaining !== null && Number(remaining) <= 0
      ? { retryAfterSeconds: resetSeconds, exhausted: true }
      : null;
  },
  // WHOOP answers 401 "Missing scope …" for a scope the user did not grant.
  isScopeRefusal: (status, body) => status === 401 && /scope/i.test(body),
};

const KINDS = ['workout', 'sleep', 'recovery'] as const;
type WhoopKind = (typeof KINDS)[number];
type WhoopEvent = { user_id?: unknown; id?: unknown; type?: unknown };

const idText = (value: unknown) =>
  typeof value === 'number' || (typeof value === 'string' && value !== '') ? String(value) : null;

/** The record an event names (a recovery is keyed by its sleep's UUID in v2, its cycle's id in v1). */
async function recordOf(
  http: ProviderHttp,
  kind: WhoopKind,
  id: string,
): Promise<{ start?: unknown } | null> {
  const get = (url: string) => http.json<{ start?: unknown }>({ url, absentOn: [404] });
  if (kind === 'workout') return get(`${WHOOP_PATHS.workout}/${encodeURIComponent(id)}`);
  if (/^\d+$/.test(id)) return get(`${WHOOP_API}/cycle/${id}`);
  return get(`${WHOOP_PATHS.sleep}/${encodeURIComponent(id)}`);
}

export const whoopNotifications: NotificationHooks = {
  // No subscription API, so no handshake: any GET is refused.
  handshake: () => null,

  verify({ headers, rawBody, secret, now }) {
    if (!secret) return 'unconfigured';
    const timestamp = headerOf(headers['x-whoop-signature-timestamp']);
    if (!timestamp || !/^\d+$/.test(timestamp) || !isFresh(Number(timestamp), now)) return 'invalid';
    const valid = hmacMatches({
      key: secret,
      message: Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]),
      provided: headers['x-whoop-signature'],
      encoding: 'base64',
    });
    return valid ? 'valid' : 'invalid';
  },

  parse(rawBody) {
    const event = JSON.parse(rawBody.toString('utf8')) as WhoopEvent;
    const userId = idText(event.user_id);
    const objectId = idText(event.id);
    const [kind, change] = typeof event.type === 'string' ? event.type.split('.') : [];
    if (
      !userId ||
      !objectId ||
      !KINDS.includes(kind as WhoopKind) ||
      (change !== 'updated' && change !== 'deleted')
    ) {
      return [{ kind: 'ignored', reason: `event ${String(event.type)}` }];
    }
    return [
      {
        kind: 'data',
        providerUserId: userId,
        dataKind: kind as WhoopKind,
        objectId,
        action: change === 'updated' ? 'update' : 'delete',
        eventTime: null,
      },
    ];
  },

  async locate(notification, http) {
    // A deleted record cannot be fetched, and the event carries no time to place it by.
    if (notification.action === 'delete') return null;
    const record = await recordOf(http, notification.dataKind as WhoopKind, notification.objectId);
    const day = typeof record?.start === 'string' ? record.start.slice(0, 10) : null;
    if (!day || !isIsoDate(day)) return null;
    return {
      types: typesAffectedBy(whoopNormalizers, notification.dataKind),
      startDate: addDays(day, -1),
      endDate: addDays(day, 2),
    };
  },
};
