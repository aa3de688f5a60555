// Google Health API v4 reads for Fitbit users (docs/providers.md#fitbit; the v4 reference and
// discovery document `health:v4`). Three ways to read a data type, each where it is right:
// - `GET …/dataTypes/{type}/dataPoints` (list): the raw points of every source, for sessions
//   (exercise, sleep, nutrition and hydration logs), samples (weight) and daily types.
// - `GET …/dataPoints:reconcile`: one stream merged from all sources (a phone and a watch count
//   the same steps once), for the intraday steps and heart rate of a day.
// - `POST …/dataPoints:dailyRollUp`: the totals of civil days over the reconciled stream, for
//   steps, distance, floors, active and total calories (total calories exist only as a rollup).
// Filters come from filters.ts (the documented grammar, on civil members, so a local day is asked
// whole); pages of at most 25 points for exercise and sleep and 10,000 for the rest,
// `nextPageToken` to go on. A rollup range is at most 14 days for heart rate and total calories
// (90 for the rest): every rollup is asked in chunks of 14. A 403 on one data type is a scope the
// user left unticked (Google's consent is granular): that type reads as empty, the rest is read.
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import { requestedDaysOnly, wholeLocalDays } from '../../provider-kit/local-days.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { collectCursor, type DayRange, dayChunks } from '../../provider-kit/pagination.ts';
import { addDays } from '../../model/time.ts';
import { instantsFilter, localDaysFilter, sleepEndingFilter } from './filters.ts';
import {
  fitbitNormalizers,
  fitbitNutrition,
  type DataPoint,
  type Identity,
  type Profile,
  type RollupPoint,
} from './normalize/index.ts';

export const GOOGLE_HEALTH_API = 'https://health.googleapis.com/v4';
/** A backfill chunk: the longest range one rollup of total calories or heart rate may span. */
export const FITBIT_CHUNK_DAYS = 14;
const ROLLUP_MAX_DAYS = 14;
const SESSION_TYPES = new Set(['exercise', 'sleep']);
/** The data types whose day totals are read as rollups. */
export const ROLLUP_TYPES = [
  'steps',
  'distance',
  'floors',
  'active-energy-burned',
  'total-calories',
] as const;

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});
const pageSizeOf = (dataType: string) => (SESSION_TYPES.has(dataType) ? 25 : 10_000);

async function points(
  http: ProviderHttp,
  dataType: string,
  method: '' | ':reconcile',
  filter: string,
): Promise<DataPoint[]> {
  const found = await collectCursor<unknown>(
    http,
    {
      url: `${GOOGLE_HEALTH_API}/users/me/dataTypes/${dataType}/dataPoints${method}`,
      query: { filter, pageSize: pageSizeOf(dataType) },
      absentOn: [403, 404],
    },
    { param: 'pageToken', field: 'nextPageToken', items: 'dataPoints' },
  );
  return found.filter((point): point is DataPoint => point !== null && typeof point === 'object');
}

/** The raw points of one type over a filter (list). */
export const listPoints = (http: ProviderHttp, dataType: string, filter: string) =>
  points(http, dataType, '', filter);
/** The points of one type merged from every source into one stream (reconcile). */
export const reconciledPoints = (http: ProviderHttp, dataType: string, filter: string) =>
  points(http, dataType, ':reconcile', filter);

/** A civil date as Google's CivilDateTime at midnight. */
const civilMidnight = (isoDate: string) => {
  const [year, month, day] = isoDate.split('-').map(Number);
  return { date: { year, month, day }, time: { hours: 0, minutes: 0, seconds: 0 } };
};

/**
 * The day totals of one type over the civil days [startDate, endDate), in ranges of 14 days. No
 * `pageSize` is sent: a range of 14 one-day windows is one page (public integrations report the
 * field refused on this method).
 */
export async function dailyRollups(
  http: ProviderHttp,
  dataType: string,
  days: DayRange,
): Promise<RollupPoint[]> {
  const all: RollupPoint[] = [];
  for (const chunk of dayChunks(days.startDate, days.endDate, ROLLUP_MAX_DAYS)) {
    const answer = await http.json<{ rollupDataPoints?: unknown[] }>({
      url: `${GOOGLE_HEALTH_API}/users/me/dataTypes/${dataType}/dataPoints:dailyRollUp`,
      method: 'POST',
      json: {
        range: { start: civilMidnight(chunk.startDate), end: civilMidnight(chunk.endDate) },
        windowSizeDays: 1,
      },
      absentOn: [403, 404],
    });
    for (const point of answer?.rollupDataPoints ?? [])
      if (point !== null && typeof point === 'object') all.push(point as RollupPoint);
  }
  return all;
}

function normalized<P, R>(label: string, normalize: (payload: P, context: NormalizeContext) => readonly R[]) {
  return (payload: P, context: NormalizeContext): readonly R[] => {
    try {
      return normalize(payload, context);
    } catch (error) {
      // A shape Google does not document: a clean provider error, never a TypeError upstream.
      throw new ProviderDataError('unavailable', `Google Health ${label} data could not be normalized`, {
        cause: error,
      });
    }
  };
}

/** The local days of a fetch, widened by a day at the end (what ends the morning after). */
const withMorningAfter = (days: DayRange): DayRange => ({ ...days, endDate: addDays(days.endDate, 1) });

const n = fitbitNormalizers;

export const fitbitFetchers = {
  async *activity(args) {
    const exercise = await listPoints(args.http, 'exercise', localDaysFilter('exercise', args));
    // Google's exercise has no series: the heart rate inside each session is its series.
    const heart: DataPoint[] = [];
    for (const point of exercise) {
      const { startTime, endTime } = point.exercise?.interval ?? {};
      if (typeof startTime !== 'string' || typeof endTime !== 'string') continue;
      heart.push(
        ...(await reconciledPoints(
          args.http,
          'heart-rate',
          instantsFilter('heart-rate', startTime, endTime),
        )),
      );
    }
    const payload = { exercise, 'heart-rate': heart };
    yield { records: normalized('exercise', n.exercise.normalize)(payload, contextOf(args)), raw: payload };
  },

  async *sleep(args) {
    // Nights are found by their end and their companions by the wake-up date.
    const nights = withMorningAfter(args);
    const payload: Record<string, DataPoint[]> = {
      sleep: await listPoints(args.http, 'sleep', sleepEndingFilter(args)),
    };
    for (const dataType of n.sleep.companions)
      payload[dataType] = await listPoints(args.http, dataType, localDaysFilter(dataType, nights));
    const records = normalized('sleep', n.sleep.normalize)(payload as never, contextOf(args));
    yield { records: requestedDaysOnly(records, args), raw: payload };
  },

  daily: wholeLocalDays(async function* (args) {
    const rollups: Record<string, RollupPoint[]> = {};
    for (const dataType of ROLLUP_TYPES) rollups[dataType] = await dailyRollups(args.http, dataType, args);
    const payload = {
      rollups,
      steps: await reconciledPoints(args.http, 'steps', localDaysFilter('steps', args)),
      'heart-rate': await reconciledPoints(args.http, 'heart-rate', localDaysFilter('heart-rate', args)),
      'daily-resting-heart-rate': await listPoints(
        args.http,
        'daily-resting-heart-rate',
        localDaysFilter('daily-resting-heart-rate', args),
      ),
    };
    yield {
      records: normalized('daily activity', n.steps.normalize)(payload, contextOf(args)),
      raw: payload,
    };
  }),

  body: wholeLocalDays(async function* (args) {
    const payload: Record<string, DataPoint[]> = {};
    for (const dataType of ['weight', ...n.weight.companions])
      payload[dataType] = await listPoints(args.http, dataType, localDaysFilter(dataType, args));
    const records = normalized('body', n.weight.normalize)(payload as never, contextOf(args));
    yield { records, raw: payload };
  }),

  nutrition: wholeLocalDays(async function* (args) {
    const payload: Record<string, DataPoint[]> = {};
    for (const dataType of fitbitNutrition.kinds)
      payload[dataType] = await listPoints(args.http, dataType, localDaysFilter(dataType, args));
    const records = normalized('nutrition', fitbitNutrition.normalize)(payload as never, contextOf(args));
    yield { records, raw: payload };
  }),

  async *athlete(args) {
    const identity = await args.http.json<Identity>({ url: `${GOOGLE_HEALTH_API}/users/me/identity` });
    const profile = await args.http.json<Profile>({
      url: `${GOOGLE_HEALTH_API}/users/me/profile`,
      absentOn: [403, 404],
    });
    const payload = { identity, profile };
    yield { records: n.profile.normalize(payload, contextOf(args)), raw: payload };
  },
} satisfies Record<string, TypeFetcher>;
