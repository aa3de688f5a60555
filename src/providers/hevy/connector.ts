// How the Hevy API behaves, as data and hooks (Hevy OpenAPI document, api.hevyapp.com/docs).
//
// Access: a personal API key (a UUID) that a Hevy Pro subscriber creates at
// hevy.com/settings?developer, sent in the `api-key` header of every request; there is no OAuth,
// no refresh and no revocation endpoint (the user deletes the key in Hevy's settings). A key is
// checked with GET /v1/user/info, whose answer `{data: {id, name, url}}` names the account.
// A 401 later means the key was deleted or the subscription ended: the connection is broken.
//
// Limits: the document states none. The window below is a courtesy an operator can change
// (HEVY_REQUEST_BUDGET); a 429 is honoured through its Retry-After by the HTTP client.
//
// Changes: the document has no push; GET /v1/workouts/events?since= lists updates and deletions
// since a time, so the framework polls it, fetches the days of the updated workouts again and
// removes the deleted ones by id.
import type { ChangedData, ProviderApi, ProviderHttp } from '../../provider-kit/api.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import { addDays } from '../../model/time.ts';
import { eventPages, HEVY_API, HEVY_CHUNK_DAYS, utcDay } from './data-source.ts';
import { hevyInstant } from './normalize/index.ts';

const POLL_OVERLAP_MS = 60_000;

export const hevyApi: ProviderApi = {
  requestWindows: [
    { requests: 5, seconds: 1 },
    { requests: 3000, seconds: 3600 },
  ],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: HEVY_CHUNK_DAYS,
  // After connecting (and again on every setup): the key still reads the account it named.
  async onConnected({ http, user }) {
    const { accountId } = await checkHevyKey(http);
    if (user.providerUserId && accountId !== user.providerUserId)
      throw new ProviderDataError('unauthorized', 'the API key reads another account than it named');
  },
  poll: {
    minutes: 15,
    async changes({ http, since, now }): Promise<ChangedData | null> {
      const days: string[] = [];
      const deleted: string[] = [];
      // Hevy's timestamps are whole seconds (the document's examples): a workout saved in the
      // second the previous poll began would sort before it, so the polls overlap by a minute
      // (a change seen twice is fetched twice, which stores the same records).
      const from = new Date(Math.floor(since.getTime() / 1000) * 1000 - POLL_OVERLAP_MS);
      for await (const events of eventPages(http, from)) {
        for (const event of events) {
          // A deletion names only the workout id (its record's summary_id), not its day.
          if (event?.type === 'deleted' && 'id' in event && typeof event.id === 'string' && event.id !== '')
            deleted.push(event.id);
          if (event?.type !== 'updated' || !('workout' in event)) continue;
          const start = hevyInstant(event.workout?.start_time);
          if (!Number.isNaN(start)) days.push(utcDay(start));
        }
      }
      days.sort();
      const first = days[0];
      const last = days[days.length - 1];
      const removed = deleted.length > 0 ? { removed: { types: ['activity' as const], ids: deleted } } : {};
      if (!first || !last) {
        const today = now.toISOString().slice(0, 10);
        return deleted.length > 0 ? { types: [], startDate: today, endDate: today, ...removed } : null;
      }
      return { types: ['activity'], startDate: first, endDate: addDays(last, 1), ...removed };
    },
  },
};

/** GET /v1/user/info with the entered key: the account it belongs to, or `unauthorized`. */
export async function checkHevyKey(http: ProviderHttp): Promise<{ accountId: string | null }> {
  const info = await http.json<{ data?: { id?: unknown } | null }>({ url: `${HEVY_API}/user/info` });
  const id = info?.data?.id;
  if (typeof id !== 'string' || id === '')
    throw new ProviderDataError('unauthorized', 'HEVY user/info named no account for the key');
  return { accountId: id };
}
