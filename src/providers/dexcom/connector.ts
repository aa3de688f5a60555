// Dexcom API v3 behaviour (docs/providers.md#dexcom): 60,000 calls per app per hour, then 429;
// no push of any kind, so the framework polls: `dataRange` with `lastSyncTime` says whether
// (and over which span) readings or events arrived since the previous poll.
import type { ChangedData, ProviderApi } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { DEXCOM_API, DEXCOM_CHUNK_DAYS, dexcomTime } from './data-source.ts';

type Moment = { systemTime?: unknown };
type Span = { start?: Moment; end?: Moment };
type DataRange = { egvs?: Span; events?: Span };

const dayOf = (moment: Moment | undefined) => {
  const day = typeof moment?.systemTime === 'string' ? moment.systemTime.slice(0, 10) : null;
  return day && isIsoDate(day) ? day : null;
};

export const dexcomApi: ProviderApi = {
  requestWindows: [{ requests: 60_000, seconds: 3600 }],
  userShare: 0.05,
  backfillDays: 90,
  backfillChunkDays: DEXCOM_CHUNK_DAYS,
  poll: {
    // Readings arrive every 5 minutes; some regions' data is delayed by up to 3 hours anyway.
    minutes: 15,
    async changes({ http, since }): Promise<ChangedData | null> {
      const range = await http.json<DataRange>({
        url: `${DEXCOM_API}/dataRange`,
        query: { lastSyncTime: dexcomTime(since) },
      });
      const days = [range?.egvs?.start, range?.egvs?.end, range?.events?.start, range?.events?.end]
        .map(dayOf)
        .filter((day): day is string => day !== null)
        .sort();
      const first = days[0];
      const last = days[days.length - 1];
      if (!first || !last) return null;
      // System times are UTC; a local day can lie a day either side.
      return { types: ['body'], startDate: addDays(first, -1), endDate: addDays(last, 2) };
    },
  },
};
