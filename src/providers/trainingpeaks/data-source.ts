// TrainingPeaks reads (github.com/TrainingPeaks/PartnersAPI/wiki):
// - GET /v2/workouts/{startDate}/{endDate}: the athlete's planned and completed workouts of those
//   local days (scope workouts:read); completed ones are activities, the rest planned workouts;
// - GET /v2/metrics/{startDate}/{endDate}: metric entries (scope metrics:read; 403 for basic
//   athletes, "Premium vs Basic Athlete", read as "no metrics");
// - GET /v1/athlete/profile: the profile (scope athlete:profile), whose TimeZone places the
//   local times both carry.
// The wiki states no longest range; reads go 30 days at a time [unconfirmed limit].
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { normalizeEach } from '../../provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { dayChunks } from '../../provider-kit/pagination.ts';
import { addDays } from '../../model/time.ts';
import { TRAININGPEAKS_API, TRAININGPEAKS_CHUNK_DAYS } from './api-base.ts';
import { metricDays } from './normalize/metrics.ts';
import {
  type TpAthlete,
  type TpMetric,
  type TpMetricDay,
  type TpWorkout,
  trainingPeaksNormalizers,
} from './normalize/index.ts';
import { isCompleted } from './normalize/workout.ts';
import { tpPlannedWorkoutFetcher } from './planned-workouts.ts';

export { TRAININGPEAKS_API, TRAININGPEAKS_CHUNK_DAYS } from './api-base.ts';

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

const profileOf = (http: ProviderHttp) =>
  http.json<TpAthlete>({ url: `${TRAININGPEAKS_API}/v1/athlete/profile` });

async function timezoneOf(http: ProviderHttp): Promise<string | null> {
  const profile = await profileOf(http);
  return typeof profile?.TimeZone === 'string' ? profile.TimeZone : null;
}

type MetricKind = 'metricsDaily' | 'metricsBody' | 'metricsSleep';

async function* metricPages(args: TypeFetchArgs, kind: MetricKind) {
  const timezone = await timezoneOf(args.http);
  const normalize = trainingPeaksNormalizers[kind].normalize as (
    day: TpMetricDay,
    context: NormalizeContext,
  ) => unknown[];
  for (const range of dayChunks(args.startDate, args.endDate, TRAININGPEAKS_CHUNK_DAYS)) {
    const list = await args.http.json<TpMetric[]>({
      url: `${TRAININGPEAKS_API}/v2/metrics/${range.startDate}/${addDays(range.endDate, -1)}`,
      absentOn: [403],
    });
    const days = metricDays(Array.isArray(list) ? list : [], timezone).filter(
      (day) => day.date >= range.startDate && day.date < range.endDate,
    );
    const { records, rejected } = normalizeEach(
      days,
      (day) => `TRAININGPEAKS metrics ${day.date}`,
      (day): unknown[] => normalize(day, contextOf(args)),
    );
    yield { records, rejected, raw: list };
  }
}

export const trainingPeaksFetchers = {
  async *activity(args) {
    const timezone = await timezoneOf(args.http);
    for (const range of dayChunks(args.startDate, args.endDate, TRAININGPEAKS_CHUNK_DAYS)) {
      const list = await args.http.json<TpWorkout[]>({
        url: `${TRAININGPEAKS_API}/v2/workouts/${range.startDate}/${addDays(range.endDate, -1)}`,
      });
      const completed = (Array.isArray(list) ? list : []).filter(
        (workout) =>
          isCompleted(workout) &&
          typeof workout.WorkoutDay === 'string' &&
          workout.WorkoutDay.slice(0, 10) >= range.startDate &&
          workout.WorkoutDay.slice(0, 10) < range.endDate,
      );
      const { records, rejected } = normalizeEach(
        completed,
        (workout) => `TRAININGPEAKS workout ${String(workout?.Id)}`,
        (workout) => trainingPeaksNormalizers.workout.normalize({ workout, timezone }, contextOf(args)),
      );
      yield { records, rejected, raw: list };
    }
  },
  daily: (args) => metricPages(args, 'metricsDaily'),
  body: (args) => metricPages(args, 'metricsBody'),
  sleep: (args) => metricPages(args, 'metricsSleep'),
  async *athlete(args) {
    const profile = await profileOf(args.http);
    if (profile)
      yield { records: trainingPeaksNormalizers.athlete.normalize(profile, contextOf(args)), raw: profile };
  },
  plannedWorkout: tpPlannedWorkoutFetcher,
} satisfies Record<string, TypeFetcher>;
