// Withings reads (docs/providers.md#withings): every call is `action=<verb>` on a shared path and
// every answer `{status, body}` (unwrapped by the connector's `unwrap`). Lists page with
// `more`/`offset`; measures take unix `startdate`/`enddate`, activity, workouts and sleep
// summaries `startdateymd`/`enddateymd`; intraday activity and sleep stages serve the first 24 h
// of a window, so they are asked day by day (night by night). ECG traces are fetched for every
// heart measurement that has one.
import { requestedDaysOnly, wholeLocalDays, wholeLocalDaysWindow } from '../../provider-kit/local-days.ts';
import { dayChunks } from '../../provider-kit/pagination.ts';
import type { ProviderHttp, ProviderRequest, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { addDays } from '../../model/time.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import {
  type WithingsActivityBody,
  type WithingsGetmeasBody,
  type WithingsHeartListBody,
  type WithingsHeartSignalBody,
  type WithingsIntradayBody,
  type WithingsSleepBody,
  type WithingsSleepSummaryBody,
  type WithingsWorkoutsBody,
  withingsNormalizers,
} from './normalize/index.ts';

export const WITHINGS_API = 'https://wbsapi.withings.net';
export const WITHINGS_CHUNK_DAYS = 30;
const DAY_S = 86_400;

const unix = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

/** Every page of a list (`more` true or 1 while there is another, at `offset`). */
async function pages<B extends { more?: boolean | number; offset?: number }>(
  http: ProviderHttp,
  request: ProviderRequest,
): Promise<B[]> {
  const bodies: B[] = [];
  let offset = 0;
  for (let page = 0; page < 100; page++) {
    const body = await http.json<B>({
      ...request,
      query: { ...request.query, ...(offset ? { offset } : {}) },
    });
    if (!body) break;
    bodies.push(body);
    if (!body.more || !body.offset) break;
    offset = body.offset;
  }
  return bodies;
}

const ymd = (range: { startDate: string; endDate: string }) => ({
  startdateymd: addDays(range.startDate, -1),
  enddateymd: range.endDate,
});

/** Each local day's first 24 h window of [startDate, endDate), a day wider on each side. */
const dayStarts = (args: TypeFetchArgs) => {
  const starts: number[] = [];
  for (let day = addDays(args.startDate, -1); day <= args.endDate; day = addDays(day, 1))
    starts.push(unix(day));
  return starts.filter((start) => start * 1000 <= args.now.getTime());
};

async function body(args: TypeFetchArgs) {
  const { fromMs, toMs } = wholeLocalDaysWindow(args);
  const window = { startdate: Math.floor(fromMs / 1000), enddate: Math.ceil(toMs / 1000) };
  const measure = await pages<WithingsGetmeasBody & { more?: number; offset?: number }>(args.http, {
    url: `${WITHINGS_API}/measure`,
    query: { action: 'getmeas', category: 1, ...window },
  });
  // ECG needs a device with it; a 403 (scope) leaves the records without it.
  const heart = await pages<WithingsHeartListBody>(args.http, {
    url: `${WITHINGS_API}/v2/heart`,
    query: { action: 'list', ...window },
    absentOn: [403],
  });
  const heart_signal: Record<string, WithingsHeartSignalBody> = {};
  for (const entry of heart.flatMap((page) => page.series)) {
    const id = entry.ecg?.signalid;
    if (id === undefined) continue;
    const signal = await args.http.json<WithingsHeartSignalBody>({
      url: `${WITHINGS_API}/v2/heart`,
      query: { action: 'get', signalid: id },
      absentOn: [403],
    });
    if (signal) heart_signal[String(id)] = signal;
  }
  return { measure, heart, heart_signal };
}

// Withings returns only the fields a request names in `data_fields` (beyond a small default
// set): heart rate, zones, pauses, SpO2 and swim fields of workouts, and most of a night's
// summary, are left out unless asked for. Every field the normalizers read is asked for.
const ACTIVITY_FIELDS =
  'steps,distance,elevation,soft,moderate,intense,active,calories,totalcalories,hr_average,hr_min,hr_max,hr_zone_0,hr_zone_1,hr_zone_2,hr_zone_3';
const WORKOUT_FIELDS =
  'calories,intensity,manual_distance,manual_calories,manual_intensity,hr_average,hr_min,hr_max,hr_zone_0,hr_zone_1,hr_zone_2,hr_zone_3,pause_duration,algo_pause_duration,spo2_average,steps,distance,elevation,pool_laps,strokes,pool_length';
const SLEEP_SUMMARY_FIELDS =
  'total_timeinbed,total_sleep_time,asleepduration,lightsleepduration,remsleepduration,deepsleepduration,sleep_efficiency,sleep_latency,wakeup_latency,wakeupduration,wakeupcount,waso,nb_rem_episodes,out_of_bed_count,hr_average,hr_min,hr_max,rr_average,rr_min,rr_max,snoring,snoringepisodecount,sleep_score,rmssd_start_avg,rmssd_end_avg,apnea_hypopnea_index';

// Body and daily records are assembled per local day from windows a day wider than asked: only
// the asked days are kept (a margin day was seen in part; provider-kit/local-days.ts).
export const withingsFetchers = {
  async *body(args) {
    for (const range of dayChunks(args.startDate, args.endDate, WITHINGS_CHUNK_DAYS)) {
      const payload = await body({ ...args, ...range });
      const records = withingsNormalizers.measure.normalize(payload, contextOf(args));
      yield { records: requestedDaysOnly(records, range), raw: payload };
    }
  },

  daily: wholeLocalDays(async function* (args) {
    const activity = await pages<WithingsActivityBody>(args.http, {
      url: `${WITHINGS_API}/v2/measure`,
      query: { action: 'getactivity', ...ymd(args), data_fields: ACTIVITY_FIELDS },
    });
    const intraday_activity: WithingsIntradayBody[] = [];
    for (const start of dayStarts(args)) {
      const day = await args.http.json<WithingsIntradayBody>({
        url: `${WITHINGS_API}/v2/measure`,
        query: { action: 'getintradayactivity', startdate: start, enddate: start + DAY_S },
      });
      if (day) intraday_activity.push(day);
    }
    const payload = { activity, intraday_activity };
    yield { records: withingsNormalizers.activity.normalize(payload, contextOf(args)), raw: payload };
  }),

  async *activity(args) {
    const workouts = await pages<WithingsWorkoutsBody>(args.http, {
      url: `${WITHINGS_API}/v2/measure`,
      query: { action: 'getworkouts', ...ymd(args), data_fields: WORKOUT_FIELDS },
    });
    yield { records: withingsNormalizers.workouts.normalize({ workouts }, contextOf(args)), raw: workouts };
  },

  async *sleep(args) {
    const summaries = await pages<WithingsSleepSummaryBody>(args.http, {
      url: `${WITHINGS_API}/v2/sleep`,
      query: { action: 'getsummary', ...ymd(args), data_fields: SLEEP_SUMMARY_FIELDS },
    });
    const sleep: WithingsSleepBody[] = [];
    for (const night of summaries.flatMap((page) => page.series)) {
      const stages = await args.http.json<WithingsSleepBody>({
        url: `${WITHINGS_API}/v2/sleep`,
        query: {
          action: 'get',
          startdate: night.startdate,
          enddate: night.enddate,
          data_fields: 'hr,rr,snoring,sdnn_1,rmssd',
        },
      });
      if (stages) sleep.push(stages);
    }
    const payload = { sleep_summary: summaries, sleep };
    yield { records: withingsNormalizers.sleep_summary.normalize(payload, contextOf(args)), raw: payload };
  },
} satisfies Record<string, TypeFetcher>;
