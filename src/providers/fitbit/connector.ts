// Google Health API behaviour for Fitbit users (providers-3.md §3, providers.md §10).
// Quotas: 120,000 requests per project per minute and 300 per user per minute [D]; the user's
// share of the project window is exactly that per-user quota. A 403 names a scope the user did
// not grant (Google's consent is granular); a dead token is a 401.
//
// Notifications come from a subscriber the operator creates for the Cloud project
// (`POST /v4/projects/{project}/subscribers` with `endpointUri` = PUBLIC_URL/providers/FITBIT/webhook
// and an `endpointAuthorization` secret = FITBIT_WEBHOOK_SECRET): Google verifies the endpoint with
// two POSTs of `{"type":"verification"}`, one carrying the secret in `Authorization` (answered 2xx)
// and one without (answered 401). Every notification carries the secret the same way; that is what
// is checked here, in constant time. (Google also signs them with ECDSA P-256 in
// X-HEALTHAPI-SIGNATURE; that needs Google's published key and is not checked.) A notification
// names the user, the data type, UPSERT or DELETE and the changed intervals; the days they cover
// are fetched again.
import { typesAffectedBy } from '../../provider-kit/define.ts';
import { constantTimeEqual, headerOf } from '../../provider-kit/signatures.ts';
import type { NotificationHooks, ProviderApi, ProviderNotification } from '../../provider-kit/api.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import { addDays } from '../../model/time.ts';
import { FITBIT_CHUNK_DAYS } from './data-source.ts';
import { fitbitNormalizers, fitbitNutrition } from './normalize/index.ts';

export const fitbitApi: ProviderApi = {
  requestWindows: [{ requests: 120_000, seconds: 60 }],
  // 300 of the project's 120,000 a minute: Google's per-user quota.
  userShare: 300 / 120_000,
  backfillDays: 90,
  backfillChunkDays: FITBIT_CHUNK_DAYS,
  isScopeRefusal: (status, body) => status === 403 && /PERMISSION_DENIED|insufficient|scope/i.test(body),
};

/** `heart-rate`, `HEART_RATE` and `heartRate` all name one data type. */
const kebab = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();

type Notification = {
  type?: unknown;
  data?: {
    healthUserId?: unknown;
    operation?: unknown;
    dataType?: unknown;
    intervals?: { physicalTimeInterval?: { startTime?: unknown; endTime?: unknown } }[];
  };
};

function parseNotification(rawBody: Buffer): ProviderNotification[] {
  const body = JSON.parse(rawBody.toString('utf8')) as Notification;
  if (!body || typeof body !== 'object') throw new Error('not an object');
  if (body.type === 'verification') return [{ kind: 'ignored', reason: 'endpoint verification' }];
  const data = body.data;
  const user = typeof data?.healthUserId === 'string' ? data.healthUserId : null;
  const dataType = typeof data?.dataType === 'string' ? kebab(data.dataType) : null;
  if (!user || !dataType) return [{ kind: 'ignored', reason: 'no user or data type' }];
  const instants: number[] = [];
  for (const interval of Array.isArray(data?.intervals) ? data.intervals : []) {
    for (const value of [
      interval?.physicalTimeInterval?.startTime,
      interval?.physicalTimeInterval?.endTime,
    ]) {
      const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
      if (!Number.isNaN(ms)) instants.push(ms);
    }
  }
  if (instants.length === 0) return [{ kind: 'ignored', reason: 'no interval' }];
  const from = new Date(Math.min(...instants)).toISOString();
  const to = new Date(Math.max(...instants)).toISOString();
  return [
    {
      kind: 'data',
      providerUserId: user,
      dataKind: dataType,
      objectId: `${from}/${to}`,
      action: data?.operation === 'DELETE' ? 'delete' : 'update',
      eventTime: to,
    },
  ];
}

export const fitbitNotifications: NotificationHooks = {
  handshake: () => null,

  verify({ headers, secret }) {
    if (!secret) return 'unconfigured';
    const given = headerOf(headers.authorization);
    if (!given) return 'invalid';
    const token = given.startsWith('Bearer ') ? given.slice(7) : given;
    return constantTimeEqual(token, secret) ? 'valid' : 'invalid';
  },

  parse: parseNotification,

  async locate(notification) {
    const [from, to] = notification.objectId.split('/');
    if (!from || !to) return null;
    const types = new Set<ProviderDataType>(typesAffectedBy(fitbitNormalizers, notification.dataKind));
    if ((fitbitNutrition.kinds as readonly string[]).includes(notification.dataKind)) types.add('nutrition');
    if (types.size === 0) return null;
    // A day wider on each side: the interval is UTC, the records are keyed on local days.
    return {
      types: [...types],
      startDate: addDays(from.slice(0, 10), -1),
      endDate: addDays(to.slice(0, 10), 2),
      // A fetch of these days returns all Google still holds: what it lacks was deleted.
      deleted: notification.action === 'delete',
    };
  },
};
