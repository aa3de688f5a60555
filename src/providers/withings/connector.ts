// Withings behaviour (docs/providers.md#withings): HTTP 200 for everything, the outcome in
// `status` (0 ok, 401 invalid token, 601 too many requests, 522 timeout, 214 scope, others a
// refused request); 120 requests a minute. Notify subscriptions are per user and per appli,
// created after consent; callbacks are unsigned form posts, so a callback is only a hint of
// what to fetch again with the user's own token — nothing in it is stored or trusted, and the
// framework takes them only for connected accounts, one pending refetch per account and appli.
import { createHmac } from 'node:crypto';
import { typesAffectedBy } from '../../provider-kit/define.ts';
import type { DataNotification, NotificationHooks, ProviderApi } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { WITHINGS_API, WITHINGS_CHUNK_DAYS } from './data-source.ts';
import { withingsNormalizers } from './normalize/index.ts';

/** appli -> the normalizer kinds it concerns (1 weight etc., 4 BP/SpO2, 16 activity, 44 sleep, 54 ECG). */
const APPLIS: Readonly<Record<string, readonly string[]>> = {
  '1': ['measure'],
  '4': ['measure'],
  '16': ['activity', 'workouts'],
  '44': ['sleep_summary'],
  '54': ['measure'],
};
/** A callback never asks for more than this many days again. */
const MAX_CALLBACK_DAYS = 7;

function statusOf(code: number): number {
  if (code === 0) return 200;
  if (code === 401 || (code >= 100 && code <= 102) || code === 200) return 401;
  if (code === 601) return 429;
  if (code === 214) return 403;
  if (code === 522 || code === 2555) return 503;
  return 400;
}

export const withingsApi: ProviderApi = {
  requestWindows: [{ requests: 120, seconds: 60 }],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: WITHINGS_CHUNK_DAYS,
  unwrap(parsed) {
    const answer = parsed as { status?: unknown; body?: unknown } | null;
    if (typeof answer?.status !== 'number') return { status: 502, body: parsed };
    return { status: statusOf(answer.status), body: answer.body ?? null };
  },
  // 601 carries no reset time: the window is a minute.
  rateLimit: (_headers, status, now) =>
    status === 429 ? { retryAfterSeconds: 60 - now.getUTCSeconds(), exhausted: true } : null,
  isScopeRefusal: (status) => status === 403,
  // action=revoke takes a nonce (from /v2/signature getnonce) and a signature, not the token.
  async revoke({ http, user }) {
    const client = http.client;
    if (!client || !user.providerUserId) return;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = await http.json<{ nonce?: string }>({
      url: `${WITHINGS_API}/v2/signature`,
      method: 'POST',
      auth: 'app',
      form: {
        action: 'getnonce',
        client_id: client.clientId,
        timestamp,
        signature: signed(client.clientSecret, ['getnonce', client.clientId, timestamp]),
      },
    });
    if (!nonce?.nonce) return;
    await http.json({
      url: `${WITHINGS_API}/v2/oauth2`,
      method: 'POST',
      auth: 'app',
      form: {
        action: 'revoke',
        client_id: client.clientId,
        nonce: nonce.nonce,
        signature: signed(client.clientSecret, ['revoke', client.clientId, nonce.nonce]),
        userid: user.providerUserId,
      },
    });
  },
  async onConnected({ http, callbackUrl }) {
    // Subscribing again to the same URL and appli is a no-op at Withings.
    for (const appli of Object.keys(APPLIS)) {
      await http.json({
        url: `${WITHINGS_API}/notify`,
        method: 'POST',
        form: { action: 'subscribe', callbackurl: callbackUrl, appli, comment: 'Tributary' },
        // A scope the user did not grant (or an appli the account cannot have) is skipped.
        absentOn: [400, 403],
      });
    }
  },
};

/** Withings' request signature: hex HMAC-SHA256 of the comma-joined values, keyed by the client secret. */
const signed = (secret: string, values: readonly string[]) =>
  createHmac('sha256', secret).update(values.join(',')).digest('hex');

/** `start/end` days of a callback, as parse() writes them into the object id. */
const daysOf = (notification: DataNotification): [string, string] | null => {
  const [start, end] = notification.objectId.split('/');
  return start && end && isIsoDate(start) && isIsoDate(end) && start <= end ? [start, end] : null;
};

const dayOfUnix = (value: string | null) => {
  const seconds = Number(value);
  return value && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString().slice(0, 10) : null;
};

export const withingsNotifications: NotificationHooks = {
  handshake: () => null,

  // Unsigned: a well-formed callback is accepted, and only ever causes a re-fetch.
  unsigned: {
    // Callbacks for days not fetched yet widen the pending one (locate still caps its length).
    coalesce(pending, next) {
      const [a, b] = [daysOf(pending), daysOf(next)];
      if (!a || !b) return a ? pending : next;
      const start = a[0] < b[0] ? a[0] : b[0];
      const end = a[1] > b[1] ? a[1] : b[1];
      return { ...pending, objectId: `${start}/${end}` };
    },
  },

  verify({ headers, rawBody }) {
    if (!String(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
      return 'invalid';
    const form = new URLSearchParams(rawBody.toString('utf8'));
    return /^\d+$/.test(form.get('userid') ?? '') && /^\d+$/.test(form.get('appli') ?? '')
      ? 'valid'
      : 'invalid';
  },

  parse(rawBody) {
    const form = new URLSearchParams(rawBody.toString('utf8'));
    const userid = form.get('userid');
    const appli = form.get('appli') ?? '';
    if (!userid || !APPLIS[appli]) return [{ kind: 'ignored', reason: `appli ${appli}` }];
    const start = form.get('date') ?? dayOfUnix(form.get('startdate'));
    const end = form.get('date') ?? dayOfUnix(form.get('enddate')) ?? start;
    return [
      {
        kind: 'data',
        providerUserId: userid,
        dataKind: appli,
        objectId: `${start ?? ''}/${end ?? ''}`,
        action: 'update',
        eventTime: null,
      },
    ];
  },

  async locate(notification) {
    const days = daysOf(notification);
    if (!days) return null;
    const [start, end] = days;
    const kinds = APPLIS[notification.dataKind] ?? [];
    const types = [...new Set(kinds.flatMap((kind) => typesAffectedBy(withingsNormalizers, kind)))];
    const last = end > addDays(start, MAX_CALLBACK_DAYS) ? addDays(start, MAX_CALLBACK_DAYS) : end;
    return { types, startDate: addDays(start, -1), endDate: addDays(last, 2) };
  },
};
