// WHOOP API v2 reads (docs/providers.md#whoop): cycle, recovery, sleep and workout collections
// by `start` (inclusive) / `end` (exclusive) date-times, at most 25 records a page, walked with
// `nextToken` (answered as `next_token`); profile and body measurement as single documents.
// Each unified type is a row of the normalizer table with its companions for the same range.
import { collectCursor, type DayRange, dayChunks } from '../../provider-kit/pagination.ts';
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { addDays } from '../../model/time.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import {
  type WhoopBodyMeasurement,
  type WhoopCycle,
  type WhoopProfile,
  type WhoopRecovery,
  type WhoopSleep,
  type WhoopWorkout,
  whoopNormalizers,
} from './normalize/index.ts';

export const WHOOP_API = 'https://api.prod.whoop.com/developer/v2';
export const WHOOP_CHUNK_DAYS = 30;
const NEXT_TOKEN = { param: 'nextToken', field: 'next_token', items: 'records' };

export const WHOOP_PATHS = {
  cycle: `${WHOOP_API}/cycle`,
  recovery: `${WHOOP_API}/recovery`,
  sleep: `${WHOOP_API}/activity/sleep`,
  workout: `${WHOOP_API}/activity/workout`,
} as const;

/** Records of a collection over local days [startDate, endDate), a day wider on each side. */
function records<T>(http: ProviderHttp, kind: keyof typeof WHOOP_PATHS, range: DayRange): Promise<T[]> {
  return collectCursor<T>(
    http,
    {
      url: WHOOP_PATHS[kind],
      query: {
        start: `${addDays(range.startDate, -1)}T00:00:00.000Z`,
        end: `${addDays(range.endDate, 1)}T00:00:00.000Z`,
        limit: 25,
      },
    },
    NEXT_TOKEN,
  );
}

/** Needs read:body_measurement; without it the records are made without the user's max HR. */
const bodyMeasurement = (http: ProviderHttp) =>
  http.json<WhoopBodyMeasurement>({ url: `${WHOOP_API}/user/measurement/body`, absentOn: [401, 403, 404] });

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

function chunked(
  build: (args: TypeFetchArgs, range: DayRange) => Promise<{ records: unknown[]; raw: unknown }>,
): TypeFetcher {
  return async function* (args) {
    for (const range of dayChunks(args.startDate, args.endDate, WHOOP_CHUNK_DAYS))
      yield await build(args, range);
  };
}

export const whoopFetchers = {
  daily: chunked(async (args, range) => {
    const payload = {
      cycle: await records<WhoopCycle>(args.http, 'cycle', range),
      recovery: await records<WhoopRecovery>(args.http, 'recovery', range),
      sleep: await records<WhoopSleep>(args.http, 'sleep', range),
    };
    return { records: whoopNormalizers.cycle.normalize(payload, contextOf(args)), raw: payload };
  }),

  sleep: chunked(async (args, range) => {
    const payload = {
      sleep: await records<WhoopSleep>(args.http, 'sleep', range),
      recovery: await records<WhoopRecovery>(args.http, 'recovery', range),
    };
    return { records: whoopNormalizers.sleep.normalize(payload, contextOf(args)), raw: payload };
  }),

  activity: chunked(async (args, range) => {
    const payload = {
      workout: await records<WhoopWorkout>(args.http, 'workout', range),
      body_measurement: await bodyMeasurement(args.http),
    };
    return { records: whoopNormalizers.workout.normalize(payload, contextOf(args)), raw: payload };
  }),

  body: chunked(async (args, range) => {
    const payload = {
      recovery: await records<WhoopRecovery>(args.http, 'recovery', range),
      body_measurement: await bodyMeasurement(args.http),
      sleep: await records<WhoopSleep>(args.http, 'sleep', range),
      cycle: await records<WhoopCycle>(args.http, 'cycle', range),
    };
    return { records: whoopNormalizers.recovery.normalize(payload, contextOf(args)), raw: payload };
  }),

  async *athlete(args) {
    const profile = await args.http.json<WhoopProfile>({ url: `${WHOOP_API}/user/profile/basic` });
    if (profile)
      yield { records: whoopNormalizers.profile.normalize({ profile }, contextOf(args)), raw: profile };
  },
} satisfies Record<string, TypeFetcher>;
