// Oura API v2 reads (docs/providers.md#oura): document collections by `start_date` /
// `end_date` and heart rate by `start_datetime` / `end_datetime`, all paginated by `next_token`.
// Each unified type is a row of the normalizer table: its own collection plus companions,
// fetched for the same days and handed over in one payload. Heart-rate ranges are capped by
// Oura, so every range is walked in chunks.
import { requestedDaysOnly } from '../../provider-kit/local-days.ts';
import { collectCursor, type DayRange, dayChunks } from '../../provider-kit/pagination.ts';
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { addDays } from '../../model/time.ts';
import type { DataPage } from '../../provider-kit/data-source.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import {
  type OuraBodyPayload,
  type OuraDailyPayload,
  type OuraPersonalInfo,
  type OuraSession,
  type OuraSleepPayload,
  type OuraWorkout,
  ouraNormalizers,
} from './normalize/index.ts';

export const OURA_API = 'https://api.ouraring.com/v2/usercollection';
/** Oura serves at most 30 days of heart rate per query; a day of margin sits on each side. */
export const OURA_CHUNK_DAYS = 28;

const NEXT_TOKEN = { param: 'next_token', field: 'next_token', items: 'data' };
/** A scope the user left unticked answers 403; the records are then made without that companion. */
const OPTIONAL = [403] as const;

/** The collection path of a kind (`vo2_max` is served as `vO2_max`). */
export const collectionPath = (kind: string) => `${OURA_API}/${kind === 'vo2_max' ? 'vO2_max' : kind}`;

/** Documents of a collection for local days [startDate, endDate), asked a day wider each side. */
function documents<T>(http: ProviderHttp, kind: string, range: DayRange, optional = false): Promise<T[]> {
  return collectCursor<T>(
    http,
    {
      url: collectionPath(kind),
      query: { start_date: addDays(range.startDate, -1), end_date: range.endDate },
      ...(optional ? { absentOn: OPTIONAL } : {}),
    },
    NEXT_TOKEN,
  );
}

/** Heart-rate rows (UTC instants) over the same widened days. */
function heartRate(http: ProviderHttp, range: DayRange, optional = false) {
  return collectCursor<OuraBodyPayload['heartrate'][number]>(
    http,
    {
      url: `${OURA_API}/heartrate`,
      query: {
        start_datetime: `${addDays(range.startDate, -1)}T00:00:00Z`,
        end_datetime: `${addDays(range.endDate, 1)}T00:00:00Z`,
      },
      ...(optional ? { absentOn: OPTIONAL } : {}),
    },
    NEXT_TOKEN,
  );
}

const personalInfo = (http: ProviderHttp) =>
  http.json<OuraPersonalInfo>({ url: `${OURA_API}/personal_info` });

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

/** One page per chunk of the range: records of that chunk, and the documents they came from. */
function chunked(build: (args: TypeFetchArgs, range: DayRange) => Promise<DataPage>): TypeFetcher {
  return async function* (args) {
    for (const range of dayChunks(args.startDate, args.endDate, OURA_CHUNK_DAYS)) {
      yield await build(args, range);
    }
  };
}

export const ouraFetchers = {
  activity: chunked(async (args, range) => {
    const workout = await documents<OuraWorkout>(args.http, 'workout', range);
    const session = await documents<OuraSession>(args.http, 'session', range, true);
    const context = contextOf(args);
    return {
      records: [
        ...ouraNormalizers.workout.normalize({ workout }, context),
        ...ouraNormalizers.session.normalize({ session }, context),
      ],
      raw: { workout, session },
    };
  }),

  sleep: chunked(async (args, range) => {
    const payload: OuraSleepPayload = {
      sleep: await documents(args.http, 'sleep', range),
      daily_sleep: await documents(args.http, 'daily_sleep', range),
      daily_readiness: await documents(args.http, 'daily_readiness', range),
      daily_spo2: await documents(args.http, 'daily_spo2', range, true),
    };
    return { records: ouraNormalizers.sleep.normalize(payload, contextOf(args)), raw: payload };
  }),

  daily: chunked(async (args, range) => {
    const { http } = args;
    const payload: OuraDailyPayload = {
      daily_activity: await documents(http, 'daily_activity', range),
      daily_stress: await documents(http, 'daily_stress', range),
      vo2_max: await documents(http, 'vo2_max', range),
      daily_readiness: await documents(http, 'daily_readiness', range),
      daily_sleep: await documents(http, 'daily_sleep', range),
      daily_spo2: await documents(http, 'daily_spo2', range, true),
      tag: await documents(http, 'tag', range, true),
      enhanced_tag: await documents(http, 'enhanced_tag', range, true),
      heartrate: await heartRate(http, range, true),
    };
    // Heart-rate rows are kept as samples in the records; storing them twice as raw is waste.
    const { heartrate: _rows, ...raw } = payload;
    // Days are asked a day wider: a margin day's heart rate was seen in part (provider-kit/local-days.ts).
    const records = ouraNormalizers.daily_activity.normalize(payload, contextOf(args));
    return { records: requestedDaysOnly(records, range), raw };
  }),

  body: chunked(async (args, range) => {
    const info = await personalInfo(args.http);
    const payload: OuraBodyPayload = {
      heartrate: await heartRate(args.http, range),
      daily_spo2: await documents(args.http, 'daily_spo2', range, true),
      ...(info ? { personal_info: info } : {}),
    };
    return {
      records: requestedDaysOnly(ouraNormalizers.heartrate.normalize(payload, contextOf(args)), range),
      raw: { daily_spo2: payload.daily_spo2, personal_info: info },
    };
  }),

  async *athlete(args) {
    const info = await personalInfo(args.http);
    if (!info) return;
    yield {
      records: ouraNormalizers.personal_info.normalize({ personal_info: info }, contextOf(args)),
      raw: info,
    };
  },
} satisfies Record<string, TypeFetcher>;
