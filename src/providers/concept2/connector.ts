// Concept2 Logbook behaviour (providers-3.md §6): "not currently rate limited" (abuse may bring
// limits), so the budget is a courtesy an operator can change (CONCEPT2_REQUEST_BUDGET). One
// webhook URL per application, set up with Concept2; bodies are not signed, so the URL given to
// Concept2 carries a secret token (`…/providers/CONCEPT2/webhook?token=<CONCEPT2_WEBHOOK_SECRET>`),
// compared in constant time. Events: result-added / result-updated (the result inline) and
// result-deleted (its id only), in a `data` wrapper or without it.
import { constantTimeEqual } from '../../provider-kit/signatures.ts';
import type { NotificationHooks, ProviderApi } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { CONCEPT2_CHUNK_DAYS } from './data-source.ts';

export const concept2Api: ProviderApi = {
  requestWindows: [
    { requests: 120, seconds: 60 },
    { requests: 20_000, seconds: 86_400 },
  ],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: CONCEPT2_CHUNK_DAYS,
};

type Concept2Event = {
  type?: unknown;
  result?: { id?: unknown; user_id?: unknown; date?: unknown } | null;
  result_id?: unknown;
  user_id?: unknown;
};

const ACTIONS: Readonly<Record<string, 'create' | 'update' | 'delete'>> = {
  'result-added': 'create',
  'result-updated': 'update',
  'result-deleted': 'delete',
};

const idText = (value: unknown) =>
  typeof value === 'number' || (typeof value === 'string' && value !== '') ? String(value) : null;

export const concept2Notifications: NotificationHooks = {
  handshake: () => null,

  verify({ query, secret }) {
    if (!secret) return 'unconfigured';
    const token = query?.get('token');
    return token && constantTimeEqual(token, secret) ? 'valid' : 'invalid';
  },

  parse(rawBody) {
    const parsed = JSON.parse(rawBody.toString('utf8')) as { data?: Concept2Event } & Concept2Event;
    const event: Concept2Event = parsed?.data && typeof parsed.data === 'object' ? parsed.data : parsed;
    const action = typeof event?.type === 'string' ? ACTIONS[event.type] : undefined;
    if (!action) return [{ kind: 'ignored', reason: `event ${String(event?.type)}` }];
    const userId = idText(event.result?.user_id) ?? idText(event.user_id);
    const objectId = idText(event.result?.id) ?? idText(event.result_id);
    if (!userId || !objectId)
      return [{ kind: 'ignored', reason: `${String(event.type)} without user or result id` }];
    const date = typeof event.result?.date === 'string' ? event.result.date.slice(0, 10) : null;
    return [{ kind: 'data', providerUserId: userId, dataKind: 'result', objectId, action, eventTime: date }];
  },

  async locate(notification) {
    // A deleted result names no date (and cannot be fetched again); the stored one stays.
    const day = notification.eventTime ?? '';
    if (notification.action === 'delete' || !isIsoDate(day)) return null;
    return { types: ['activity'], startDate: addDays(day, -1), endDate: addDays(day, 2) };
  },
};
