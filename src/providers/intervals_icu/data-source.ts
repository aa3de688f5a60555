// Intervals.icu reads (OpenAPI document intervals.icu/api/v1/docs; athlete id `0` means "the
// athlete the token belongs to", forum t/609):
// - GET /api/v1/athlete/0/activities?oldest&newest&limit: activities newest first, `oldest` and
//   `newest` local dates or date-times; there are no page tokens, so a full page is followed by
//   the next one ending at the oldest start seen (ids already read are skipped);
// - GET /api/v1/athlete/0/wellness?oldest&newest: one record per local day, `newest` inclusive;
// - GET /api/v1/athlete/0: the profile, whose `timezone` places wellness days;
// - GET /api/v1/athlete/0/events?category=WORKOUT: planned workouts (planned-workouts.ts).
// The framework's HTTP client adds the token and handles refreshes, retries, 429s and budgets.
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { normalizeEach } from '../../provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { dayChunks } from '../../provider-kit/pagination.ts';
import { addDays } from '../../model/time.ts';
import { INTERVALS_ICU_API } from './api-base.ts';
import {
  type IntervalsActivity,
  type IntervalsAthlete,
  type IntervalsWellness,
  type WellnessPayload,
  intervalsIcuNormalizers,
} from './normalize/index.ts';
import { intervalsPlannedWorkoutFetcher } from './planned-workouts.ts';

export { INTERVALS_ICU_API } from './api-base.ts';
export const INTERVALS_ICU_CHUNK_DAYS = 30;
/** Activities asked for per request. */
export const ACTIVITY_PAGE = 100;
const MAX_PAGES = 1000;

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

const athleteOf = (http: ProviderHttp) =>
  http.json<IntervalsAthlete>({ url: `${INTERVALS_ICU_API}/athlete/0` });

/** The activities starting on local days [startDate, endDate), page by page. */
export async function* activityPages(
  http: ProviderHttp,
  startDate: string,
  endDate: string,
): AsyncGenerator<IntervalsActivity[]> {
  const seen = new Set<string>();
  let newest = `${addDays(endDate, -1)}T23:59:59`;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await http.json<IntervalsActivity[]>({
      url: `${INTERVALS_ICU_API}/athlete/0/activities`,
      query: { oldest: startDate, newest, limit: ACTIVITY_PAGE },
    });
    const activities = Array.isArray(list) ? list : [];
    const fresh = activities.filter((activity) => activity && !seen.has(String(activity.id)));
    for (const activity of fresh) seen.add(String(activity.id));
    if (fresh.length > 0) yield fresh;
    if (activities.length < ACTIVITY_PAGE || fresh.length === 0) return;
    const oldestSeen = activities
      .map((activity) => activity.start_date_local)
      .filter((start) => typeof start === 'string')
      .sort()[0];
    if (!oldestSeen || oldestSeen >= newest) return;
    newest = oldestSeen;
  }
}

async function* wellnessPages(args: TypeFetchArgs, kind: 'wellnessDaily' | 'wellnessBody' | 'wellnessSleep') {
  const normalizeWellness = intervalsIcuNormalizers[kind].normalize as (
    payload: WellnessPayload,
    context: NormalizeContext,
  ) => unknown[];
  const athlete = await athleteOf(args.http);
  const timezone = typeof athlete?.timezone === 'string' ? athlete.timezone : null;
  for (const range of dayChunks(args.startDate, args.endDate, INTERVALS_ICU_CHUNK_DAYS)) {
    const list = await args.http.json<IntervalsWellness[]>({
      url: `${INTERVALS_ICU_API}/athlete/0/wellness`,
      // `newest` is inclusive; the range's end is exclusive.
      query: { oldest: range.startDate, newest: addDays(range.endDate, -1) },
    });
    const days = (Array.isArray(list) ? list : []).filter(
      (day) => typeof day?.id === 'string' && day.id >= range.startDate && day.id < range.endDate,
    );
    const { records, rejected } = normalizeEach(
      days,
      (day) => `INTERVALS_ICU wellness ${String(day?.id)}`,
      (day): unknown[] => normalizeWellness({ wellness: day, timezone }, contextOf(args)),
    );
    yield { records, rejected, raw: list };
  }
}

export const intervalsIcuFetchers = {
  async *activity(args) {
    for (const range of dayChunks(args.startDate, args.endDate, INTERVALS_ICU_CHUNK_DAYS)) {
      for await (const activities of activityPages(args.http, range.startDate, range.endDate)) {
        const { records, rejected } = normalizeEach(
          activities,
          (activity) => `INTERVALS_ICU activity ${String(activity?.id)}`,
          (activity) => intervalsIcuNormalizers.activity.normalize(activity, contextOf(args)),
        );
        yield { records, rejected, raw: activities };
      }
    }
  },
  daily: (args) => wellnessPages(args, 'wellnessDaily'),
  body: (args) => wellnessPages(args, 'wellnessBody'),
  sleep: (args) => wellnessPages(args, 'wellnessSleep'),
  async *athlete(args) {
    const athlete = await athleteOf(args.http);
    if (athlete)
      yield { records: intervalsIcuNormalizers.athlete.normalize(athlete, contextOf(args)), raw: athlete };
  },
  plannedWorkout: intervalsPlannedWorkoutFetcher,
} satisfies Record<string, TypeFetcher>;
