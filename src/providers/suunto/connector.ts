// Suunto Cloud API behaviour (providers-3.md §5): an Azure API Management gateway in front of
// the API wants the subscription key (`Ocp-Apim-Subscription-Key`) on every call beside the
// bearer token; limits are per subscription and not published, so the budget here is a
// conservative guess an operator can raise (SUUNTO_REQUEST_BUDGET). Webhooks are configured in
// the API Zone profile with a notification secret; each body is signed with hex HMAC-SHA256
// in `X-HMAC-SHA256-Signature` (SUUNTO_WEBHOOK_SECRET). WORKOUT_CREATED names the user
// (`username`, the token's `user` claim) and the workout; 24/7 events are acknowledged and
// ignored (not read yet).
import { hmacMatches } from '../../provider-kit/signatures.ts';
import type { NotificationHooks, ProviderApi } from '../../provider-kit/api.ts';
import { addDays, isIsoDate, localIsoDate } from '../../model/time.ts';
import { SUUNTO_CHUNK_DAYS } from './data-source.ts';

export const suuntoApi: ProviderApi = {
  requestWindows: [
    { requests: 100, seconds: 60 },
    { requests: 10_000, seconds: 86_400 },
  ],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: SUUNTO_CHUNK_DAYS,
  requestHeaders: { 'ocp-apim-subscription-key': 'SUBSCRIPTION_KEY' },
};

type SuuntoEvent = {
  type?: unknown;
  username?: unknown;
  workout?: { workoutKey?: unknown; startTime?: unknown; timeOffsetInMinutes?: unknown } | null;
};

export const suuntoNotifications: NotificationHooks = {
  // Configured in the API Zone profile: there is no handshake.
  handshake: () => null,

  verify({ headers, rawBody, secret }) {
    if (!secret) return 'unconfigured';
    const valid = hmacMatches({
      key: secret,
      message: rawBody,
      provided: headers['x-hmac-sha256-signature'],
      encoding: 'hex',
      ignoreCase: true,
    });
    return valid ? 'valid' : 'invalid';
  },

  parse(rawBody) {
    const event = JSON.parse(rawBody.toString('utf8')) as SuuntoEvent;
    if (event === null || typeof event !== 'object') return [{ kind: 'ignored', reason: 'not an object' }];
    if (event.type !== 'WORKOUT_CREATED') return [{ kind: 'ignored', reason: `event ${String(event.type)}` }];
    const user = typeof event.username === 'string' && event.username !== '' ? event.username : null;
    const key = typeof event.workout?.workoutKey === 'string' ? event.workout.workoutKey : null;
    if (!user || !key) return [{ kind: 'ignored', reason: 'WORKOUT_CREATED without username or workoutKey' }];
    const start = event.workout?.startTime;
    const offset =
      typeof event.workout?.timeOffsetInMinutes === 'number' ? event.workout.timeOffsetInMinutes : 0;
    // The event time is the workout's local day (carried as a date), so locate needs no request.
    const day = typeof start === 'number' && Number.isFinite(start) ? localIsoDate(start, offset) : null;
    return [
      {
        kind: 'data',
        providerUserId: user,
        dataKind: 'workout',
        objectId: key,
        action: 'create',
        eventTime: day,
      },
    ];
  },

  async locate(notification) {
    const day = notification.eventTime ?? '';
    if (!isIsoDate(day)) return null;
    return { types: ['activity'], startDate: addDays(day, -1), endDate: addDays(day, 2) };
  },
};
